import { Logger } from '@nestjs/common';
import { loadConfig } from '@app/config';
import { WebhooksConfig } from '../config';
import type { SubscriptionEntity } from '../subscriptions/subscription.entity';
import type { SubscriptionsRepository } from '../subscriptions/subscriptions.repository';
import type { Clock } from '@app/server';
import type { AttemptOutcome, ClaimedDelivery, DeliveryClaimsRepository } from './delivery-claims.repository';
import type { DeliveryHousekeepingRepository } from './delivery-housekeeping.repository';
import type { HeldDeliveriesRepository } from './held-deliveries.repository';
import { DeliveryDispatcher } from './delivery-dispatcher';
import type { EndpointNotices } from './endpoint-notices';
import type { WebhookResponse, WebhookSender } from './webhook-sender';

const NOW = new Date('2026-01-01T12:00:00Z');
const DAY = 86_400_000;
const config = loadConfig(WebhooksConfig, { WEBHOOK_RETRY_SCHEDULE: '5s,5m,30m' });

const answered = (status: number | null, extra: Partial<WebhookResponse> = {}): WebhookResponse => ({
  status,
  latencyMs: 3,
  excerpt: null,
  error: status === null ? 'connection refused' : null,
  retryAfterMs: null,
  aborted: false,
  ...extra,
});

function delivery(over: Partial<ClaimedDelivery> = {}): ClaimedDelivery {
  return {
    id: 'd1',
    subscription_id: 's1',
    event_id: 'evt_1',
    event_type: 'message.sent',
    event_created_at: new Date(NOW.getTime() - 1000),
    payload: '{"id":"evt_1"}',
    attempts: 0,
    retry_index: 0,
    user_id: 'u1',
    url: 'https://hooks.example.com/x',
    secret: 'sealed',
    previous_secret: null,
    previous_secret_expires_at: null,
    secret_key_id: 'k1',
    probing: false,
    ...over,
  };
}

/** The dispatcher with every collaborator replaced: what it decides is what it asks them to do. */
function setup(response: WebhookResponse, sub: Partial<SubscriptionEntity> = {}, failingSince = NOW) {
  const em = {};
  const settled: AttemptOutcome[] = [];
  const succeeded: AttemptOutcome[] = [];
  const claims = {
    settle: jest.fn(async (_em: unknown, outcomes: AttemptOutcome[]) => void settled.push(...outcomes)),
    settleSucceeded: jest.fn(async (outcomes: AttemptOutcome[]) => void succeeded.push(...outcomes)),
    release: jest.fn(async () => undefined),
  };
  const housekeeping = { failPending: jest.fn(async () => undefined) };
  const subscriptions = {
    openSecrets: jest.fn((_row: unknown, inGrace: boolean) => (inGrace ? ['whsec_new', 'whsec_old'] : ['whsec_new'])),
    transaction: jest.fn(async (work: (em: unknown) => Promise<unknown>) => work(em)),
    lock: jest.fn(async () => ({ id: 's1', status: 'ACTIVE', probeIndex: 0, ...sub })),
    markFailing: jest.fn(async () => failingSince),
    disable: jest.fn(async () => undefined),
    park: jest.fn(async () => undefined),
  };
  const sender = { send: jest.fn(async () => response), close: jest.fn() };
  const notices = { flush: jest.fn(async () => undefined) };
  const clock = {
    now: () => NOW,
    nowMs: () => NOW.getTime(),
    nowSeconds: () => Math.floor(NOW.getTime() / 1000),
  } as Clock;
  const dispatcher = new DeliveryDispatcher(
    config,
    claims as unknown as DeliveryClaimsRepository,
    {} as HeldDeliveriesRepository,
    housekeeping as unknown as DeliveryHousekeepingRepository,
    subscriptions as unknown as SubscriptionsRepository,
    sender as unknown as WebhookSender,
    notices as unknown as EndpointNotices,
    clock,
  );
  return { dispatcher, claims, housekeeping, subscriptions, sender, notices, settled, succeeded };
}

const at = (ms: number) => new Date(NOW.getTime() + ms);

describe('delivery dispatcher rules', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('settles a 2xx as succeeded in the success batch, without touching the subscription', async () => {
    const t = setup(answered(204));
    await t.dispatcher.attempt(delivery());
    expect(t.succeeded).toEqual([
      expect.objectContaining({
        status: 'SUCCEEDED',
        nextAttemptAt: null,
        record: expect.objectContaining({ attempt: 1, responseStatus: 204, error: null }),
      }),
    ]);
    expect(t.subscriptions.transaction).not.toHaveBeenCalled();
  });

  it('retries a failure on the schedule and parks the endpoint until its next probe', async () => {
    const t = setup(answered(500), { probeIndex: 1 });
    await t.dispatcher.attempt(delivery({ retry_index: 1, attempts: 1 }));
    expect(t.settled).toEqual([
      expect.objectContaining({
        status: 'PENDING',
        nextAttemptAt: at(300_000),
        record: expect.objectContaining({ attempt: 2, status: 'FAILED', error: 'answered 500' }),
      }),
    ]);
    // The endpoint's own step (its second failed probe in a row) decides the parking.
    expect(t.subscriptions.park).toHaveBeenCalledWith({}, 's1', at(300_000), NOW);
    expect(t.subscriptions.disable).not.toHaveBeenCalled();
  });

  it('parks at the last step of the schedule once the probes have used it up', async () => {
    const t = setup(answered(null), { probeIndex: 9 });
    await t.dispatcher.attempt(delivery());
    expect(t.subscriptions.park).toHaveBeenCalledWith({}, 's1', at(1_800_000), NOW);
  });

  it('waits as long as Retry-After asks on a 429, for the delivery and the endpoint', async () => {
    const t = setup(answered(429, { retryAfterMs: 42_000 }));
    await t.dispatcher.attempt(delivery());
    expect(t.settled[0]).toMatchObject({ status: 'PENDING', nextAttemptAt: at(42_000) });
    expect(t.subscriptions.park).toHaveBeenCalledWith({}, 's1', at(42_000), NOW);
  });

  it('fails a delivery for good when the schedule is used up; the subscription stays active', async () => {
    const t = setup(answered(503));
    await t.dispatcher.attempt(delivery({ retry_index: 3, attempts: 4 }));
    expect(t.settled[0]).toMatchObject({ status: 'FAILED', nextAttemptAt: null, record: { attempt: 5 } });
    expect(t.subscriptions.disable).not.toHaveBeenCalled();
    expect(t.subscriptions.park).toHaveBeenCalled();
  });

  it('disables on 410 Gone, fails the backlog and announces endpoint.disabled', async () => {
    const t = setup(answered(410));
    await t.dispatcher.attempt(delivery());
    expect(t.settled[0]).toMatchObject({ status: 'FAILED' });
    expect(t.subscriptions.disable).toHaveBeenCalledWith(
      {},
      's1',
      'the endpoint answered 410 Gone',
      expect.stringMatching(/^evt_/),
    );
    expect(t.housekeeping.failPending).toHaveBeenCalledWith(
      {},
      's1',
      'subscription disabled: the endpoint answered 410 Gone',
    );
    expect(t.notices.flush).toHaveBeenCalled();
    expect(t.subscriptions.park).not.toHaveBeenCalled();
  });

  it('disables a subscription whose deliveries have failed for the whole disable period, not before', async () => {
    const young = setup(answered(500), {}, new Date(NOW.getTime() - 5 * DAY + 1));
    await young.dispatcher.attempt(delivery());
    expect(young.subscriptions.disable).not.toHaveBeenCalled();

    const old = setup(answered(500), {}, new Date(NOW.getTime() - 5 * DAY));
    await old.dispatcher.attempt(delivery());
    expect(old.subscriptions.disable).toHaveBeenCalledWith(
      {},
      's1',
      'every delivery failed for 5 d',
      expect.any(String),
    );
    expect(old.notices.flush).toHaveBeenCalled();
  });

  it('does not retry for a subscription disabled meanwhile', async () => {
    const t = setup(answered(500), { status: 'DISABLED' });
    await t.dispatcher.attempt(delivery());
    expect(t.settled[0]).toMatchObject({ status: 'FAILED', nextAttemptAt: null });
    expect(t.subscriptions.markFailing).not.toHaveBeenCalled();
    expect(t.subscriptions.park).not.toHaveBeenCalled();
  });

  it('hands a delivery back untouched when the attempt was cut short by shutdown', async () => {
    const t = setup(answered(null, { aborted: true }));
    await t.dispatcher.attempt(delivery());
    expect(t.claims.release).toHaveBeenCalledWith('d1');
    expect(t.settled).toEqual([]);
    expect(t.succeeded).toEqual([]);
  });

  it('fails a delivery whose body is past retention without sending it', async () => {
    const t = setup(answered(200));
    await t.dispatcher.attempt(delivery({ payload: null }));
    expect(t.sender.send).not.toHaveBeenCalled();
    expect(t.settled[0]).toMatchObject({
      status: 'FAILED',
      record: { error: 'the event body is past its retention period' },
    });
  });

  it('signs with the previous secret too while its grace period lasts', async () => {
    const t = setup(answered(200));
    await t.dispatcher.attempt(delivery({ previous_secret: 'sealed-old', previous_secret_expires_at: at(1) }));
    expect(t.sender.send).toHaveBeenLastCalledWith(
      expect.objectContaining({ secrets: ['whsec_new', 'whsec_old'] }),
      expect.anything(),
    );
    await t.dispatcher.attempt(delivery({ previous_secret: 'sealed-old', previous_secret_expires_at: NOW }));
    expect(t.sender.send).toHaveBeenLastCalledWith(
      expect.objectContaining({ secrets: ['whsec_new'] }),
      expect.anything(),
    );
  });
});
