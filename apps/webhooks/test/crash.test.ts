import type { ChildProcess } from 'node:child_process';
import { CreatedSubscriptionView, EventEnvelope } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { killHard, sleep, spawnTs, waitFor, waitForLine } from '@app/testing';
import { ApiFactory } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { Receiver, verifies } from './support/receiver';
import { call, channelEvent, publishEvent } from './support/api';

const EVENTS = 60;

describe('killing the webhooks service mid-fan-out', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let clients: NatsClients;
  let receiver: Receiver;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    // Only the api runs in this process; the webhooks service is a real process we can kill.
    platform = await startPlatform({
      suite: 'webhooks_crash',
      services: ['api'],
      topology: { ackWaitMs: 2000 },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'webhooks-crash-test' });
    receiver = await new Receiver().start();
  });

  afterAll(async () => {
    for (const c of children) await killHard(c);
    await receiver?.stop();
    await clients?.drain();
    await factory?.close();
    await platform?.stop();
  });

  async function startWebhooks(): Promise<ChildProcess> {
    const child = spawnTs('apps/webhooks/src/main.ts', {
      ...platform.env,
      // Its own admin port: the default (its port + 1000) is in another jest worker's port window.
      ADMIN_PORT: new URL(platform.adminUrls.webhooks).port,
      LOG_LEVEL: 'info',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_SCHEDULE: '200,200,200',
      WEBHOOK_POLL_INTERVAL_MS: '50',
    });
    children.push(child);
    await waitForLine(child, /Nest application successfully started/, 30_000);
    return child;
  }

  it('loses no event: every event reaches every subscriber after a restart', async () => {
    let webhooks = await startWebhooks();
    const user = await factory.user();
    // A slow receiver, so that the kill lands while deliveries are still going out.
    const slow = (_req: unknown, res: import('node:http').ServerResponse) => setTimeout(() => res.end('ok'), 25);
    receiver.on('/crash-a', slow);
    receiver.on('/crash-b', slow);
    const subs: CreatedSubscriptionView[] = [];
    for (const path of ['/crash-a', '/crash-b']) {
      const res = await call<CreatedSubscriptionView>(platform.urls.api, user.auth, 'POST', '/subscriptions', {
        url: receiver.url(path),
        events: '*',
      });
      expect(res.status).toBe(201);
      subs.push(res.body);
    }

    const events: EventEnvelope[] = [];
    const publishing = (async () => {
      for (let i = 0; i < EVENTS; i++) {
        const e = channelEvent(user.userId);
        events.push(e);
        await publishEvent(clients, platform.infra.topology, e);
        await sleep(15);
      }
    })();

    await waitFor(() => receiver.at('/crash-a').length >= 5, 15_000, 'first deliveries');
    await killHard(webhooks);
    const deliveredBeforeKill = receiver.at('/crash-a').length;
    expect(deliveredBeforeKill).toBeLessThan(EVENTS);
    await publishing;

    webhooks = await startWebhooks();
    const ids = (path: string) => new Set(receiver.at(path).map((r) => r.headers['webhook-id']));
    await waitFor(
      () => ids('/crash-a').size === EVENTS && ids('/crash-b').size === EVENTS,
      45_000,
      `all ${EVENTS} events at both subscribers`,
    );
    for (const e of events) {
      expect(ids('/crash-a').has(e.id)).toBe(true);
      expect(ids('/crash-b').has(e.id)).toBe(true);
    }
    const [a, b] = subs;
    expect(receiver.at('/crash-a').every((r) => verifies(a.secret, r))).toBe(true);
    expect(receiver.at('/crash-b').every((r) => verifies(b.secret, r))).toBe(true);
  });
});
