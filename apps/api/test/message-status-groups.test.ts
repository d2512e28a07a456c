import { Client } from 'pg';
import { EventEnvelope, EventType, newEventId, Topology, unixSeconds } from '@app/contracts';
import { NatsClients, publishDurable } from '@app/messaging';
import { eventsHandledBy } from '@app/testing';
import { AppEntity } from '../src/wa-apps/app.entity';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { commitTemplateSend } from '../../../test/support/send-records';

const PRICE = 0.02;
const PER_USER = 40;

/**
 * A burst of status events for many messages of two users, published at once: the api applies them
 * in groups, and each message must still end exactly as its events applied one by one would leave
 * it: furthest status, each timeline step once, each hold settled once, usage counted once.
 */
describe('status events applied in groups', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let nats: NatsClients;
  let topology: Topology;

  beforeAll(async () => {
    platform = await startPlatform({ suite: 'status-groups', services: ['api'], env: { SETTLEMENT_INTERVAL_MS: '0' } });
    topology = platform.infra.topology;
    nats = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'status-groups-test' });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
  });

  afterAll(async () => {
    await nats?.drain();
    await factory?.close();
    await platform?.stop();
  });

  const sql = <T = Record<string, unknown>>(query: string, params: unknown[] = []) =>
    factory.dataSource.query(query, params) as Promise<T[]>;

  /** A template send of the user's app, accepted and held as the api records one. */
  const sendTo = (user: TestUser, app: AppEntity, recipient: string) =>
    commitTemplateSend(platform.apps.api!, topology, {
      userId: user.userId,
      app,
      recipient,
      category: 'UTILITY',
      price: PRICE,
      template: 'groups_tpl',
    });

  const publish = (type: EventType, appId: number, data: Record<string, unknown>) => {
    const event: EventEnvelope = {
      id: newEventId(),
      type,
      created_at: unixSeconds(),
      channel: 'whatsapp',
      app_id: appId,
      data: { recipient: 'x', timestamp: unixSeconds(), ...data },
    };
    return publishDurable(nats.js, topology.eventSubject(event.type), event, event.id);
  };

  it('every message ends as its events say, and the money and the usage add up to the cent', async () => {
    const tenants: { user: TestUser; app: AppEntity }[] = [];
    for (let t = 0; t < 2; t++) {
      const user = await factory.user('system', { balance: 10 });
      tenants.push({ user, app: await factory.activeApp(user.userId, { message_limit: 'TIER_UNLIMITED' }) });
    }
    // Per message, the events in the order the channel reports them.
    type Fate = 'delivered' | 'read-first' | 'failed' | 'duplicated';
    const fates: Fate[] = ['delivered', 'read-first', 'failed', 'duplicated'];
    const plan: { id: string; appId: number; fate: Fate; events: [EventType, Record<string, unknown>][] }[] = [];
    for (const { user, app } of tenants) {
      for (let i = 0; i < PER_USER; i++) {
        const out = await sendTo(user, app, `7999${String(i).padStart(7, '0')}`);
        const fate = fates[i % fates.length];
        const sent: [EventType, Record<string, unknown>] = [
          'message.sent',
          { message_id: out.id, provider_message_id: `wamid.${out.id}` },
        ];
        // The later receipts name only the channel's id, as WhatsApp's do.
        const by = { provider_message_id: `wamid.${out.id}` };
        const events: Record<Fate, [EventType, Record<string, unknown>][]> = {
          delivered: [sent, ['message.delivered', by]],
          'read-first': [sent, ['message.read', by], ['message.delivered', by]],
          failed: [sent, ['message.failed', { ...by, error: { code: '131026', title: 'Message undeliverable' } }]],
          duplicated: [sent, ['message.delivered', by], ['message.delivered', by], ['message.sent', sent[1]]],
        };
        plan.push({ id: out.id, appId: app.id, fate, events: events[fate] });
      }
    }
    // Interleaved across messages, each message's own events in order, all published at once.
    const longest = Math.max(...plan.map((p) => p.events.length));
    const publishes: Promise<unknown>[] = [];
    for (let step = 0; step < longest; step++) {
      for (const p of plan) {
        const e = p.events[step];
        if (!e) continue;
        publishes.push(publish(e[0], p.appId, e[1]));
      }
    }
    await Promise.all(publishes);
    await eventsHandledBy(nats, topology, 'api', 30_000);

    const rows = await sql<{ id: string; status: string; hold: string; steps: string; charges: number }>(
      `SELECT m.id, m.status, h.status AS hold,
              (SELECT string_agg(e.status, ',' ORDER BY e.status) FROM message_events e WHERE e.message_id = m.id) AS steps,
              (SELECT count(*)::int FROM transactions t WHERE t.message_id = m.id) AS charges
       FROM messages m JOIN holds h ON h.message_id = m.id`,
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const expected: Record<Fate, { status: string; hold: string; steps: string; charges: number }> = {
      delivered: { status: 'DELIVERED', hold: 'CAPTURED', steps: 'DELIVERED,QUEUED,SENT', charges: 1 },
      'read-first': { status: 'READ', hold: 'CAPTURED', steps: 'DELIVERED,QUEUED,READ,SENT', charges: 1 },
      failed: { status: 'FAILED', hold: 'RELEASED', steps: 'FAILED,QUEUED,SENT', charges: 0 },
      duplicated: { status: 'DELIVERED', hold: 'CAPTURED', steps: 'DELIVERED,QUEUED,SENT', charges: 1 },
    };
    for (const p of plan)
      expect({ fate: p.fate, ...byId.get(p.id) }).toEqual({ fate: p.fate, id: p.id, ...expected[p.fate] });

    const perUser = PER_USER / fates.length;
    for (const { user } of tenants) {
      const captured = perUser * 3;
      const [b] = await sql<{ available: string; held: string }>(
        `SELECT available::text, held::text FROM balances WHERE user_id = $1`,
        [user.userId],
      );
      expect(b).toEqual({ available: (10 - captured * PRICE).toFixed(4), held: '0.0000' });
      const [u] = await sql<Record<string, string>>(
        `SELECT sum(queued)::int AS queued, sum(sent)::int AS sent, sum(delivered)::int AS delivered,
                sum(read)::int AS read, sum(failed)::int AS failed, sum(cost)::text AS cost
         FROM usage_hourly WHERE user_id = $1`,
        [user.userId],
      );
      expect(u).toEqual({
        queued: PER_USER,
        sent: PER_USER,
        delivered: perUser * 3,
        read: perUser,
        failed: perUser,
        cost: (captured * PRICE).toFixed(4),
      });
    }
  });

  it("settles a group with the user's balance row held for one statement, which carries the commit", async () => {
    // Another api replica's sends and settlements of this user queue on that row meanwhile.
    const user = await factory.user('system', { balance: 10 });
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_UNLIMITED' });
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      ids.push((await sendTo(user, app, `7888${String(i).padStart(7, '0')}`)).id);
    }
    const spy = jest.spyOn(Client.prototype, 'query');
    const statements = { calls: spy.mock.calls, contexts: spy.mock.contexts };
    try {
      // Sent (groups that only count), then delivered (groups that settle and count).
      for (const type of ['message.sent', 'message.delivered'] as const) {
        await Promise.all(
          ids.map((id) => publish(type, app.id, { message_id: id, provider_message_id: `wamid.${id}` })),
        );
        await eventsHandledBy(nats, topology, 'api', 30_000);
      }
      Object.assign(statements, { calls: [...spy.mock.calls], contexts: [...spy.mock.contexts] });
    } finally {
      spy.mockRestore();
    }
    const textOf = (arg: unknown) => (typeof arg === 'string' ? arg : ((arg as { text?: string })?.text ?? ''));
    // Each connection's statements in order: the one that changes a balance or the usage row (rows
    // every send and settlement of the user takes) ends its transaction (it carries the COMMIT),
    // so no statement, COMMIT included, follows it before the next BEGIN.
    const byConnection = new Map<unknown, string[]>();
    statements.calls.forEach((args, i) => {
      const conn = statements.contexts[i];
      byConnection.set(conn, [...(byConnection.get(conn) ?? []), textOf(args[0])]);
    });
    let settlements = 0;
    let counted = 0;
    for (const texts of byConnection.values()) {
      texts.forEach((text, i) => {
        if (!/UPDATE balances|INSERT INTO usage_hourly/.test(text)) return;
        if (/UPDATE balances/.test(text)) settlements++;
        else counted++;
        const rest = texts.slice(i + 1);
        const next = rest.findIndex((t) => /^(BEGIN|START TRANSACTION)/.test(t));
        expect(rest.slice(0, next < 0 ? rest.length : next)).not.toContain('COMMIT');
      });
    }
    expect(settlements).toBeGreaterThan(0);
    expect(counted).toBeGreaterThan(0);
    const [u] = await sql<Record<string, string>>(
      `SELECT sum(sent)::int AS sent, sum(delivered)::int AS delivered, sum(cost)::text AS cost
       FROM usage_hourly WHERE user_id = $1`,
      [user.userId],
    );
    expect(u).toEqual({ sent: 8, delivered: 8, cost: (8 * PRICE).toFixed(4) });
    const [b] = await sql<{ available: string; held: string }>(
      `SELECT available::text, held::text FROM balances WHERE user_id = $1`,
      [user.userId],
    );
    expect(b).toEqual({ available: (10 - 8 * PRICE).toFixed(4), held: '0.0000' });
  });
});
