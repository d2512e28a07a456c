import { cpus, loadavg } from 'node:os';
import { EventEnvelope } from '@app/contracts';
import { sleep } from '@app/testing';
import { ApiFactory } from '../../support/factories';
import { registerSandboxNumber } from '../../support/sandbox';
import { Receiver, verify } from '../../../apps/webhooks/test/support/receiver';
import { hasNatsServer } from '@app/testing';
import { ChaosCluster, Restart, ServiceName } from './cluster';
import { statusFanOut } from './status-fan-out';
import { readAllEvents, readLedger, Ledger, requestsReachedTwice, webhookHistory } from './ledger';
import { InFlightKeyOutcome, killApiWithKeyInFlight, messagesWithKey } from './in-flight-key';
import { Attempt, SendLoad, SendTarget } from './load';
import { CAMPAIGN_ELIGIBLE, CAMPAIGN_EXCLUDED, CampaignOutcome, ChaosCampaign } from './campaign';
import { InboundLoad } from './inbound';

/** Tunable from the environment; with the defaults the suite takes two to four minutes. */
const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const OUTAGE_MS = num('CHAOS_OUTAGE_MS', 20_000);
const STEADY_MS = num('CHAOS_STEADY_MS', 4000);
const SENDS_PER_SECOND = num('CHAOS_SENDS_PER_SECOND', 10);
const MAX_IN_FLIGHT = num('CHAOS_MAX_IN_FLIGHT', 20);
const SETTLE_MS = num('CHAOS_SETTLE_MS', 90_000);
/** The campaign's pace: slow enough that its 500 recipients are still being sent through every kill and outage. */
const CAMPAIGN_RATE = num('CHAOS_CAMPAIGN_RATE', 5);
/** Customers' messages a second to a WhatsApp number, through every kill and outage. */
const INBOUND_PER_SECOND = num('CHAOS_INBOUND_PER_SECOND', 5);
/** Messages with no final status after this long are failed `no_receipt` by the api's reconciler. */
// The receipt reconciler works in whole minutes: a message with no final status after this fails as no_receipt.
const NO_RECEIPT_AFTER_MINUTES = num('CHAOS_NO_RECEIPT_AFTER_MINUTES', 1);
const USERS = 3;
const START_BALANCE = 1000;
/** What the sandbox bills by the recipient's ending (the load's endings; 1111 keeps no pricing). */
const PRICING_RULES = [
  { to: '*5678', category: 'marketing' },
  { to: '*9876', category: 'utility', type: 'free_customer_service' },
  { to: '*2222', category: 'authentication_international' },
];
const KILLED: ServiceName[] = ['api', 'gateway', 'queue', 'webhooks'];
/**
 * A killed process's start until it is ready, less the time its main thread waited for a CPU: what
 * the start itself costs (its work and its waits on the network, the database, a lease), whatever
 * else loads the machine. The suite's own load, its Postgres and NATS and the other services share
 * two cores here, and how long a start waits its turn says how busy they are, not how the service
 * starts; with replicas twice the processes share them. The table shows both.
 */
const RESTART_BUDGET_MS = 5000;
/**
 * A send whose Idempotency-Key was in flight when the api died is accepted within this long of the
 * new api's readiness: the key's lease (IDEMPOTENCY_LEASE_SECONDS, 5 s) and a retry's pause.
 */
const IN_FLIGHT_KEY_BUDGET_MS = 7000;
/** How long the webhooks service holds a taken delivery (its default 15 s timeout plus 5 s). */
const DELIVERY_LEASE_MS = 20_000;

interface Figures {
  /** Each killed service's restart, with the machine's 1-minute load average then (starts slow down with it). */
  restarts: Partial<Record<ServiceName, Restart & { load: number }>>;
  /** The api killed while a send held its Idempotency-Key, and that send's retry. */
  inFlightKey?: InFlightKeyOutcome;
  natsRecoveryMs?: number;
  postgresRecoveryMs?: number;
}

/** A restart's time to readiness less its main thread's wait for a CPU (all of it where that is unknown). */
function startCostMs(r: Restart | undefined): number {
  return r ? r.readyAfterStartMs - (r.waitedForCpuMs ?? 0) : Infinity;
}

/** "1200 ms after its start, 700 of them waiting for a CPU (1300 ms after the kill; load average 3.1 on 2 CPUs)". */
function describeRestart(r: (Restart & { load: number }) | undefined): string {
  if (!r) return 'not restarted';
  const waited = r.waitedForCpuMs === null ? '' : `, ${r.waitedForCpuMs} of them waiting for a CPU`;
  return `${r.readyAfterStartMs} ms after its start${waited} (${r.readyAfterKillMs} ms after the kill; load average ${r.load.toFixed(1)} on ${cpus().length} CPUs)`;
}

/** "503×12 (all with Retry-After)" style summary of the answers seen in one phase. */
function describeAnswers(attempts: Attempt[]): string {
  const counts = new Map<string, number>();
  for (const a of attempts) {
    const label =
      a.outcome === 503 && !a.retryAfter
        ? '503 without Retry-After'
        : typeof a.outcome === 'number' && a.ms > 10_000
          ? `${a.outcome} after more than 10 s`
          : a.detail
            ? `${a.outcome} (${a.detail})`
            : String(a.outcome);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts.entries()].map(([k, v]) => `${k}×${v}`).join(', ') || 'no attempts';
}

/** What a careful client must never see while a dependency is down: 500, 401, or no answer within 10 s. */
function badAnswers(attempts: Attempt[]): Attempt[] {
  return attempts.filter(
    (a) =>
      a.outcome === 'timeout' ||
      a.outcome === 401 ||
      (typeof a.outcome === 'number' && a.outcome >= 500 && a.outcome !== 503) ||
      (a.outcome === 503 && !a.retryAfter) ||
      a.ms > 10_000,
  );
}

/**
 * The chaos scenario: sends and a campaign under load while each product service is SIGKILLed in turn
 * (with `replicas` above one, its first replica, the others serving on), then NATS and PostgreSQL are
 * stopped for OUTAGE_MS each; then everything is counted. The platform runs as `replicas` processes of
 * each service but the sandbox.
 */
export function describeChaos(replicas: number): void {
  const title =
    replicas > 1
      ? `chaos: ${replicas} replicas of each service under kills of one replica and outages`
      : 'chaos: the platform under kills and outages';
  /** What a kill's rows call the process killed. */
  const killedName = (s: ServiceName) => (replicas > 1 ? `${s} (replica 1 of ${replicas})` : s);
  (hasNatsServer() ? describe : describe.skip)(title, () => {
    let cluster: ChaosCluster;
    let factory: ApiFactory | undefined;
    let receiver: Receiver;
    let load: SendLoad;
    let campaign: ChaosCampaign;
    let inbound: InboundLoad;
    const users: { userId: string; auth: string; secret: string; path: string }[] = [];
    const targets: SendTarget[] = [];
    const figures: Figures = { restarts: {} };
    const startedAt = Date.now();

    beforeAll(async () => {
      cluster = await ChaosCluster.start({
        replicas,
        // Short enough that work held by a killed process comes back within the run.
        ackWaitMs: 10_000,
        serviceEnv: {
          api: {
            RATE_LIMIT_PER_SECOND: '1000',
            RATE_LIMIT_BURST: '1000',
            RECEIPT_TIMEOUT_MINUTES: String(NO_RECEIPT_AFTER_MINUTES),
            SETTLEMENT_INTERVAL_MS: '1000',
            OUTBOX_RELAY_AFTER_MS: '2000',
            // A runner killed mid-send leaves its claimed recipients to another tick after this long.
            CAMPAIGN_CLAIM_SECONDS: '10',
          },
          queue: { QUEUE_BACKOFF_BASE_MS: '500', QUEUE_BACKOFF_MAX_MS: '5000' },
          webhooks: {
            WEBHOOK_RETRY_SCHEDULE: '1s,2s,4s,8s,15s,30s,30s,30s',
            WEBHOOK_POLL_INTERVAL_MS: '100',
          },
          sandbox: {
            SANDBOX_STATUS_DELAY_MS: '100',
            SANDBOX_WEBHOOK_RETRY_FIRST_DELAY_MS: '250',
            SANDBOX_WEBHOOK_RETRY_MAX_DELAY_MS: '2000',
            SANDBOX_WEBHOOK_RETRY_FOR_MS: '300000',
          },
        },
      });
      receiver = await new Receiver().start();
      // The channel bills what it says in its status callbacks, not always what was held (UTILITY):
      // dearer (taken from what is available), free (the hold returned), or nothing said (the hold).
      for (const rule of PRICING_RULES) {
        const res = await fetch(`${cluster.urls.sandbox}/_sandbox/whatsapp/pricing`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(rule),
        });
        if (res.status !== 200) throw new Error(`pricing rule refused: ${res.status} ${await res.text()}`);
      }
      factory = await ApiFactory.connect(cluster.databaseUrl);
      for (let i = 0; i < USERS; i++) {
        const user = await factory.user('system', { balance: START_BALANCE });
        const app = await factory.activeApp(user.userId, { message_limit: 'TIER_UNLIMITED' });
        await registerSandboxNumber(cluster.urls.sandbox, app);
        const template = await factory.sendableTemplate(app.id, { body: 'Hi {{1}}, your order {{2}} is ready.' });
        const path = `/user-${i}`;
        const res = await fetch(`${cluster.urls.api}/api/v1/subscriptions`, {
          method: 'POST',
          headers: { authorization: user.auth, 'content-type': 'application/json' },
          body: JSON.stringify({ url: receiver.url(path), events: '*' }),
        });
        if (res.status !== 201) throw new Error(`subscription refused: ${res.status} ${await res.text()}`);
        const { secret } = (await res.json()) as { secret: string };
        users.push({ userId: user.userId, auth: user.auth, secret, path });
        targets.push({ userIndex: i, auth: user.auth, appId: app.id, template: template.name });
        if (i === 0)
          inbound = await InboundLoad.prepare(
            cluster.urls,
            cluster.databaseUrl,
            { ...user, appId: app.id, phoneNumberId: app.phoneNumberId ?? '' },
            INBOUND_PER_SECOND,
          );
      }
      campaign = await ChaosCampaign.prepare(
        cluster.urls,
        cluster.databaseUrl,
        cluster.natsUrl,
        factory,
        CAMPAIGN_RATE,
      );
      // The suite's own connections are not part of the experiment: closed before Postgres stops.
      await factory.close();
      factory = undefined;
      load = new SendLoad(cluster.urls.api, targets, SENDS_PER_SECOND, MAX_IN_FLIGHT);
    });

    afterAll(async () => {
      await load?.stop();
      await inbound?.stop();
      await factory?.close();
      await receiver?.stop();
      await cluster?.stop();
    });

    it('loses nothing, does nothing twice and leaves no money held through kills and outages', async () => {
      // The campaign runs through everything that follows, at its own pace, beside the sends.
      await campaign.launch();
      load.start();
      inbound.start();
      await sleep(STEADY_MS);

      for (const service of KILLED) {
        load.phase = `kill ${service}`;
        if (service === 'api') {
          // The api dies while a send holds its key: the retry must not wait for a stale-key timeout.
          const probe = await killApiWithKeyInFlight(cluster, targets[0], users[0].userId);
          figures.inFlightKey = probe;
          figures.restarts.api = { ...probe.restart, load: loadavg()[0] };
          if (probe.messageId) load.accepted.push({ messageId: probe.messageId, userIndex: 0, key: probe.key });
        } else {
          figures.restarts[service] = { ...(await cluster.killAndRestart(service, 0)), load: loadavg()[0] };
        }
        load.phase = `after kill ${service}`;
        await sleep(STEADY_MS);
      }

      /** Stops a dependency for OUTAGE_MS, starts it again: milliseconds until every service is ready. */
      const outage = async (name: string, stop: () => Promise<void>, start: () => Promise<void>) => {
        load.phase = `${name} down`;
        await stop();
        await sleep(OUTAGE_MS);
        load.phase = `${name} back`;
        await start();
        const ms = await cluster.waitAllReady(60_000);
        load.phase = `after ${name}`;
        await sleep(STEADY_MS);
        return ms;
      };
      figures.natsRecoveryMs = await outage(
        'nats',
        () => cluster.stopNats(),
        () => cluster.startNats(),
      );
      figures.postgresRecoveryMs = await outage(
        'postgres',
        () => cluster.stopPostgres(),
        () => cluster.startPostgres(),
      );
      await load.stop();
      await inbound.stop();

      // Settle: every accepted message final, no hold left, every event at its subscriber.
      const ids = load.accepted.map((a) => a.messageId);
      const userIds = users.map((u) => u.userId);
      const moneyUserIds = [...userIds, campaign.userId];
      let ledger: Ledger = await readLedger(cluster.databaseUrl, ids, moneyUserIds);
      let events: EventEnvelope[] = [];
      const settleBy = Date.now() + SETTLE_MS;
      for (;;) {
        ledger = await readLedger(cluster.databaseUrl, ids, moneyUserIds);
        events = await readAllEvents(cluster.natsUrl);
        const received = new Set(receiver.requests.map((r) => r.headers['webhook-id']));
        const settled =
          ledger.notFinal.length === 0 &&
          ledger.held.length === 0 &&
          events.every((e) => received.has(e.id)) &&
          (await campaign.settled().catch(() => false)) &&
          (await inbound.settled().catch(() => false));
        if (settled || Date.now() > settleBy) break;
        await sleep(2000);
      }

      // Channel calls: the sandbox records every accepted send with our id in biz_opaque_callback_data.
      const sends = (await (await fetch(`${cluster.urls.sandbox}/_sandbox/whatsapp/messages`)).json()) as {
        received_at: number;
        body: { biz_opaque_callback_data?: string };
      }[];
      const channelCalls = new Map<string, number[]>();
      for (const s of sends) {
        const id = s.body.biz_opaque_callback_data ?? '?';
        channelCalls.set(id, [...(channelCalls.get(id) ?? []), s.received_at]);
      }
      const twiceOnChannel = [...channelCalls.entries()]
        .filter(([, at]) => at.length > 1)
        .map(([id, at]) => `${id}×${at.length} (${at.map((t) => load.phaseAt(t)).join(', ')})`);
      // Per request as well: a retry with the same key that made a second message is one request twice.
      const perRequest = await requestsReachedTwice(
        cluster.databaseUrl,
        new Map([...channelCalls.entries()].map(([id, at]) => [id, at.length])),
      );

      // Webhooks: each received request verified with its user's secret and counted by webhook-id.
      const byWebhookId = new Map<string, number>();
      const unverified: string[] = [];
      for (const r of receiver.requests) {
        const user = users.find((u) => u.path === r.path);
        try {
          verify(user?.secret ?? '', r);
        } catch (err) {
          unverified.push(`${r.path} ${r.headers['webhook-id']}: ${String(err)}`);
        }
        byWebhookId.set(r.headers['webhook-id'], (byWebhookId.get(r.headers['webhook-id']) ?? 0) + 1);
      }
      // Delivery is at least once (docs/webhooks.md): a request the subscriber answered may be sent
      // again when the service dies, or cannot write to Postgres, before recording the answer. Those
      // repeats are counted apart; any other repeat is a defect.
      const pgDownAt = load.timeline.find((t) => t.phase === 'postgres down')?.at ?? Infinity;
      const repeats = [...byWebhookId.entries()]
        .filter(([, n]) => n > 1)
        .map(([id, n]) => {
          const times = receiver.requests.filter((r) => r.headers['webhook-id'] === id).map((r) => r.at);
          // Sent while Postgres was down (or within a lease before it stopped): the answer could not be recorded.
          const explained =
            load.phaseAt(times[0]) === 'kill webhooks' ||
            load.phaseAt(times[0]) === 'postgres down' ||
            (times[0] <= pgDownAt && pgDownAt - times[0] < DELIVERY_LEASE_MS);
          return { id, explained, text: `${id}×${n} (${times.map((t) => load.phaseAt(t)).join(', ')})` };
        });
      const unexplained = repeats.filter((r) => !r.explained);
      const history = unexplained.length
        ? await webhookHistory(
            cluster.databaseUrl,
            unexplained.map((r) => r.id),
          )
        : null;
      const receivedTwice = unexplained.map((r) => `${r.text}: ${history?.get(r.id) ?? 'no delivery row'}`);
      const repeatedAfterCrash = repeats.filter((r) => r.explained).length;
      const subscribed = new Set(userIds);
      const expectedEvents = events.filter((e) => e.user_id && subscribed.has(e.user_id));
      const { notDelivered, passedBy, backwards } = statusFanOut(expectedEvents, receiver.requests);
      const acceptedIds = new Set(ids);
      const withoutFinalEvent = ids.filter(
        (id) =>
          !expectedEvents.some(
            (e) =>
              (e.data as { message_id?: string }).message_id === id &&
              ['message.delivered', 'message.read', 'message.failed'].includes(e.type),
          ),
      );

      const campaignOutcome: CampaignOutcome = await campaign.outcome();
      const inboundOutcome = await inbound.outcome();
      const inFlight = figures.inFlightKey;
      const inFlightMessages = inFlight ? await messagesWithKey(cluster.databaseUrl, users[0].userId, inFlight.key) : 0;
      const during = (phase: string) => load.attempts.filter((a) => a.phase === phase);
      /** How long the answers of a phase took: "p50 12 ms, max 40 ms". */
      const answerTimes = (attempts: Attempt[]) => {
        const ms = attempts.map((a) => a.ms).sort((a, b) => a - b);
        return ms.length ? `p50 ${ms[Math.floor(ms.length / 2)]} ms, max ${ms[ms.length - 1]} ms` : 'none';
      };
      const natsDown = during('nats down');
      /** Sends accepted from each kill until its new process was ready (with replicas, the survivors'). */
      const acceptedDuringKill = KILLED.map((k) => during(`kill ${k}`).filter((a) => a.outcome === 201).length);
      const pgDown = during('postgres down');
      const rows: [string, string][] = [
        ['processes per service (the sandbox: one)', `${replicas}`],
        ['sends accepted (201)', `${ids.length} (distinct ${acceptedIds.size})`],
        ['send attempts', `${load.attempts.length}: ${describeAnswers(load.attempts)}`],
        [
          'sends given up by the client after 60 s of retries',
          `${load.abandoned.length} (last answer: ${describeAnswers(load.abandoned.map((a) => a.last))})`,
        ],
        ['sends refused with a final 4xx', `${load.refused.length}`],
        ['accepted messages without a final status', `${ledger.notFinal.length} (${JSON.stringify(ledger.byStatus)})`],
        ['  of which failed no_receipt by the reconciler', `${ledger.noReceipt}`],
        ['accepted messages without a final event', `${withoutFinalEvent.length}`],
        ['messages that reached the channel twice', `${twiceOnChannel.length} of ${sends.length} channel calls`],
        [
          'requests whose message reached the channel more than once',
          `${perRequest.twice.length} of ${perRequest.requests} requests at the channel`,
        ],
        ['users whose credits ≠ available + held + captured', `${ledger.moneyMismatches.length} of ${USERS + 1}`],
        ['holds still HELD', `${ledger.held.length}`],
        ['events not delivered to their subscriber', `${notDelivered.length} of ${expectedEvents.length}`],
        ['  statuses not sent, a later one of their message sent before', `${passedBy}`],
        ['statuses received below one of their message received before', `${backwards.length}`],
        [
          'webhook deliveries received twice (same webhook-id)',
          `${receivedTwice.length} of ${receiver.requests.length}, besides ${repeatedAfterCrash} repeated after a kill or a Postgres stop before the answer was recorded`,
        ],
        ['webhook deliveries that failed verification', `${unverified.length}`],
        [`campaign of 500 at ${CAMPAIGN_RATE}/s through it all`, ChaosCampaign.describe(campaignOutcome)],
        [`customers' messages at ${INBOUND_PER_SECOND}/s to their conversations`, InboundLoad.describe(inboundOutcome)],
        [`sends while NATS was down (${OUTAGE_MS / 1000} s)`, `${describeAnswers(natsDown)}; ${answerTimes(natsDown)}`],
        [`sends while Postgres was down (${OUTAGE_MS / 1000} s)`, `${describeAnswers(pgDown)}; ${answerTimes(pgDown)}`],
        [
          'api killed with a keyed send in flight: its retry',
          inFlight?.acceptedAfterReadyMs != null
            ? `accepted ${inFlight.acceptedAfterReadyMs} ms after the new api was ready (answers ${inFlight.answers.join(', ')}); messages with the key: ${inFlightMessages}`
            : `not accepted (answers ${inFlight?.answers.join(', ')})`,
        ],
        ...KILLED.map((s): [string, string] => [
          `${killedName(s)}: SIGKILL, then ready`,
          describeRestart(figures.restarts[s]),
        ]),
        [
          'sends accepted while each was being killed and restarted',
          KILLED.map((k, i) => `${k} ${acceptedDuringKill[i]} of ${during(`kill ${k}`).length}`).join(', '),
        ],
        ['every service ready after NATS returned', `${figures.natsRecoveryMs} ms`],
        ['every service ready after Postgres returned', `${figures.postgresRecoveryMs} ms`],
        ['processes that exited on their own (restarted)', JSON.stringify(cluster.unexpectedExits)],
        ['suite duration', `${Math.round((Date.now() - startedAt) / 1000)} s`],
        ...(process.env.CHAOS_KEEP_LOGS ? [['process logs', cluster.logFile('*')] as [string, string]] : []),
      ];
      const width = Math.max(...rows.map(([k]) => k.length));
      process.stdout.write(
        `\n| ${'what'.padEnd(width)} | result |\n|${'-'.repeat(width + 2)}|--------|\n${rows
          .map(([k, v]) => `| ${k.padEnd(width)} | ${v} |`)
          .join('\n')}\n\n`,
      );

      expect({ notFinal: ledger.notFinal.slice(0, 20) }).toEqual({ notFinal: [] });
      expect({ twiceOnChannel }).toEqual({ twiceOnChannel: [] });
      expect({ requestsReachedTwice: perRequest.twice.slice(0, 20) }).toEqual({ requestsReachedTwice: [] });
      expect({ moneyMismatches: ledger.moneyMismatches }).toEqual({ moneyMismatches: [] });
      expect({ held: ledger.held.slice(0, 20) }).toEqual({ held: [] });
      expect({
        notDelivered: notDelivered.slice(0, 20),
        withoutFinalEvent: withoutFinalEvent.slice(0, 20),
        backwards: backwards.slice(0, 20),
      }).toEqual({ notDelivered: [], withoutFinalEvent: [], backwards: [] });
      expect({ receivedTwice: receivedTwice.slice(0, 20), unverified: unverified.slice(0, 5) }).toEqual({
        receivedTwice: [],
        unverified: [],
      });
      // The campaign: one message per eligible recipient, none pending, only the planned exclusions skipped.
      expect({
        state: campaignOutcome.state,
        messages: campaignOutcome.ledger.messages,
        sentTwice: campaignOutcome.sentTwice.slice(0, 20),
        reachedTwice: campaignOutcome.reachedTwice.slice(0, 20),
        recipients: campaignOutcome.ledger.recipientStates,
        skipped: campaignOutcome.skipped,
        countsMatch: campaignOutcome.countsMatch,
        held: campaignOutcome.ledger.held,
      }).toEqual({
        state: 'completed',
        messages: CAMPAIGN_ELIGIBLE,
        sentTwice: [],
        reachedTwice: [],
        recipients: { queued: CAMPAIGN_ELIGIBLE, skipped: CAMPAIGN_EXCLUDED.opted_out + CAMPAIGN_EXCLUDED.no_identity },
        skipped: CAMPAIGN_EXCLUDED,
        countsMatch: true,
        held: 0,
      });
      expect({
        inboundLost: inboundOutcome.lost.slice(0, 20),
        inboundTwice: inboundOutcome.twice.slice(0, 20),
      }).toEqual({
        inboundLost: [],
        inboundTwice: [],
      });
      expect(inboundOutcome.sent).toBeGreaterThan(0);
      expect(ids.length).toBeGreaterThan(0);
      expect(acceptedIds.size).toBe(ids.length);
      for (const s of KILLED) {
        expect({
          service: s,
          readyWithinBudget: startCostMs(figures.restarts[s]) <= RESTART_BUDGET_MS,
        }).toEqual({
          service: s,
          readyWithinBudget: true,
        });
      }
      expect({
        inFlightKeyAccepted: inFlight?.acceptedAfterReadyMs != null,
        withinBudget: (inFlight?.acceptedAfterReadyMs ?? Infinity) <= IN_FLIGHT_KEY_BUDGET_MS,
        messagesWithKey: inFlightMessages,
      }).toEqual({ inFlightKeyAccepted: true, withinBudget: true, messagesWithKey: 1 });
      if (replicas > 1) {
        // The api's other replica kept accepting sends while the first was killed and restarting.
        expect({ acceptedWhileAnApiReplicaWasDown: acceptedDuringKill[0] > 0 }).toEqual({
          acceptedWhileAnApiReplicaWasDown: true,
        });
      }
      // During an outage a send gets 503 with Retry-After at once: never 500, 401 or a wait past 10 s.
      const onlyRetryable = (attempts: Attempt[]) =>
        badAnswers(attempts).length ? describeAnswers(attempts) : 'only 503 with Retry-After';
      expect({ whileNatsDown: onlyRetryable(natsDown), whilePostgresDown: onlyRetryable(pgDown) }).toEqual({
        whileNatsDown: 'only 503 with Retry-After',
        whilePostgresDown: 'only 503 with Retry-After',
      });
    });
  });
}
