import { AttemptView, CreatedSubscriptionView, DeliveryView, EventEnvelope } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { ApiFactory, TestUser } from '../../../../test/support/factories';
import { Platform, startPlatform } from '../../../../test/support/platform';
import { ApiAnswer, call, channelEvent, publishEvent } from './api';
import { Receiver } from './receiver';

/** The webhooks settings the suite runs with: short enough that retries, parking and disabling show. */
export const SUITE_SETTINGS = {
  retryScheduleMs: [200, 200, 200, 200],
  timeoutMs: 1500,
  rotationGraceMs: 2500,
  disableAfterMs: 3000,
  /**
   * A small global cap, so that dead subscribers holding their slots would starve the rest if the
   * dispatcher let them take the free places.
   */
  concurrency: 5,
} as const;

type EventArgs = Parameters<typeof channelEvent> extends [string, ...infer R] ? R : never;

/** What the cases of the webhooks suite work with; the platform parts are filled in by `beforeAll`. */
export interface WebhooksSuite {
  platform: Platform;
  factory: ApiFactory;
  clients: NatsClients;
  receiver: Receiver;
  /** The api's base URL. */
  api: string;
  /** The api as the user (without a token when null). */
  call<T = unknown>(user: TestUser | null, method: string, path: string, body?: unknown): Promise<ApiAnswer<T>>;
  /** A subscription of the user to every event (or as `extra` says), created through the api. */
  subscribe(user: TestUser, url: string, extra?: Record<string, unknown>): Promise<CreatedSubscriptionView>;
  /** A channel event of the user, published to the events stream. */
  publish(user: TestUser, ...args: EventArgs): Promise<EventEnvelope>;
  attempts(user: TestUser, subscriptionId: string): Promise<AttemptView[]>;
  deliveries(user: TestUser, subscriptionId: string): Promise<DeliveryView[]>;
}

/** The api and the webhooks service on their own database and streams, with a receiver for the hooks. */
export function useWebhooksSuite(): WebhooksSuite {
  const suite = {
    call: (user, method, path, body) => call(suite.api, user?.auth ?? null, method, path, body),
    async subscribe(user, url, extra = {}) {
      const res = await call<CreatedSubscriptionView>(suite.api, user.auth, 'POST', '/subscriptions', {
        url,
        events: '*',
        ...extra,
      });
      expect(res.status).toBe(201);
      return res.body;
    },
    async publish(user, ...args) {
      const event = channelEvent(user.userId, ...args);
      await publishEvent(suite.clients, suite.platform.infra.topology, event);
      return event;
    },
    async attempts(user, id) {
      return (await call<AttemptView[]>(suite.api, user.auth, 'GET', `/subscriptions/${id}/attempts`)).body;
    },
    async deliveries(user, id) {
      return (await call<DeliveryView[]>(suite.api, user.auth, 'GET', `/subscriptions/${id}/deliveries`)).body;
    },
  } as WebhooksSuite;

  beforeAll(async () => {
    const s = SUITE_SETTINGS;
    suite.platform = await startPlatform({
      suite: 'webhooks',
      services: ['api', 'webhooks'],
      env: {
        WEBHOOK_RETRY_SCHEDULE: s.retryScheduleMs.join(','),
        WEBHOOK_TIMEOUT_MS: String(s.timeoutMs),
        WEBHOOK_ROTATION_GRACE_MS: String(s.rotationGraceMs),
        WEBHOOK_DISABLE_AFTER_MS: String(s.disableAfterMs),
        WEBHOOK_POLL_INTERVAL_MS: '50',
        WEBHOOK_CONCURRENCY: String(s.concurrency),
        WEBHOOK_HOUSEKEEPING_INTERVAL_MS: '300',
      },
    });
    suite.api = suite.platform.urls.api;
    suite.factory = await ApiFactory.connect(suite.platform.infra.databaseUrl);
    suite.clients = await NatsClients.connect({ url: suite.platform.infra.natsUrl, name: 'webhooks-test' });
    suite.receiver = await new Receiver().start();
  });

  afterAll(async () => {
    await suite.receiver?.stop();
    await suite.clients?.drain();
    await suite.factory?.close();
    await suite.platform?.stop();
  });

  return suite;
}
