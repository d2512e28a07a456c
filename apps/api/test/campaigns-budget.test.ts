import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/nats-core';
import { CAMPAIGNS_RPC, CampaignRecipientInput, CampaignView, EventType } from '@app/contracts';
import { connectNats, RpcClient } from '@app/messaging';
import { waitFor } from '@app/testing';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { registerSandboxNumber } from '../../../test/support/sandbox';
import type { AppEntity } from '../src/wa-apps/app.entity';

interface Seen {
  type: string;
  data: { campaign_id?: string; message_id?: string; state?: string; reason?: string | null; counts?: unknown };
}

/**
 * A campaign's money and events through the whole platform (the runner on its own timer, the queue,
 * WhatsApp in the sandbox): the budget counts what is held plus what was captured, never what a
 * failed message released, so a $1.00 budget at $0.05 pays exactly 20 delivered messages however
 * many fail on the way; every change of state is told once, with the counts its answer gives.
 */
describe('campaign budget and events end to end', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let rpc: RpcClient;
  let nats: NatsConnection;
  let user: TestUser;
  let app: AppEntity;
  const seen: Seen[] = [];
  const accountId = randomUUID();
  const types: EventType[] = [
    'message.delivered',
    'message.failed',
    'campaign.started',
    'campaign.paused',
    'campaign.resumed',
    'campaign.cancelled',
    'campaign.completed',
  ];

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'campaigns-budget',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      env: { SANDBOX_STATUS_DELAY_MS: '50', CAMPAIGN_TICK_MS: '100' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    rpc = new RpcClient({ url: platform.infra.natsUrl, prefix: platform.infra.prefix, name: 'campaigns-budget' });
    nats = await connectNats({ url: platform.infra.natsUrl, name: 'campaigns-budget-events' });
    for (const type of types) {
      nats.subscribe(platform.infra.topology.eventSubject(type), {
        callback: (_err, msg) => {
          seen.push(msg.json());
        },
      });
    }
    user = await factory.user('system', { balance: 10 });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    // MARKETING on WhatsApp: 0.05 a message.
    await factory.sendableTemplate(app.id, { name: 'camp_budget', body: 'Hello {{1}}', category: 'MARKETING' });
  });

  afterAll(async () => {
    await nats?.close();
    await rpc?.onApplicationShutdown();
    await factory?.close();
    await platform?.stop();
  });

  const sql = <T>(query: string, params: unknown[]) => factory.dataSource.query(query, params) as Promise<T[]>;

  /** A launched campaign of `n` recipients; `fails(seq)` ones have a number the sandbox refuses (131026). */
  async function launch(
    name: string,
    n: number,
    fails: (seq: number) => boolean,
    over: Record<string, unknown>,
  ): Promise<{ account_id: string; id: string }> {
    const draft = await rpc.call(CAMPAIGNS_RPC.create, {
      account_id: accountId,
      user_id: user.userId,
      definition: {
        name,
        template: 'camp_budget',
        params: ['{{contact.name}}'],
        audience: { list: 'all' },
        channels: ['whatsapp'],
        ...over,
      },
    });
    const tag = String(Math.floor(Math.random() * 900) + 100);
    const recipients: CampaignRecipientInput[] = Array.from({ length: n }, (_, i) => ({
      seq: i + 1,
      contact_id: `c${i + 1}`,
      external_id: null,
      time_zone: 'UTC',
      route: [
        { channel: 'whatsapp', to: `5511${tag}${String(i + 1).padStart(3, '0')}${fails(i + 1) ? '3333' : '1000'}` },
      ],
      params: [`Name ${i + 1}`],
    }));
    const ref = { account_id: accountId, id: draft.id };
    await rpc.call(CAMPAIGNS_RPC.load, { ...ref, reset: true, recipients });
    await rpc.call(CAMPAIGNS_RPC.launch, { ...ref, template_app_id: app.id, total: n });
    return ref;
  }

  const told = (id: string, type: string) =>
    waitFor(() => seen.find((e) => e.type === type && e.data.campaign_id === id), 10_000, `${type} of ${id}`);

  it('a $1.00 budget at $0.05 pays exactly 20 delivered messages, however many fail on the way', async () => {
    // Every 4th number is refused by WhatsApp: its hold is released and its room sends another.
    const ref = await launch('Budget', 40, (seq) => seq % 4 === 0, { budget: 1 });
    const paused = await waitFor(
      async () => {
        const view = await rpc.call(CAMPAIGNS_RPC.get, ref);
        return view.state === 'paused' && view;
      },
      60_000,
      'the campaign paused at its budget',
      200,
    );
    expect(paused).toMatchObject({
      pause_reason: 'budget_reached',
      money: { held: 0, spent: 1, committed: 1 },
    });
    expect(paused.counts.delivered + paused.counts.read).toBe(20);
    expect(paused.counts.failed).toBeGreaterThanOrEqual(5);
    expect(paused.counts.pending).toBeGreaterThan(0);

    // The money: 20 captures of 0.05, each a ledger transaction; every failed message's hold released.
    const [messages] = await sql<{ charged: number; captured: string; failed: number; released: number }>(
      `SELECT count(*) FILTER (WHERE m.charged > 0)::int AS charged, coalesce(sum(m.charged), 0)::text AS captured,
              count(*) FILTER (WHERE m.status = 'FAILED')::int AS failed,
              count(*) FILTER (WHERE h.status = 'RELEASED')::int AS released
         FROM messages m JOIN holds h ON h.message_id = m.id WHERE m.campaign_id = $1`,
      [ref.id],
    );
    expect(messages).toEqual({
      charged: 20,
      captured: '1.0000',
      failed: paused.counts.failed,
      released: paused.counts.failed,
    });
    const [ledger] = await sql<{ n: number; total: string }>(
      `SELECT count(*)::int AS n, sum(t.amount)::text AS total FROM transactions t
         JOIN messages m ON m.id = t.message_id WHERE m.campaign_id = $1`,
      [ref.id],
    );
    expect(ledger).toEqual({ n: 20, total: '-1.0000' });
    // The channel delivered exactly those 20 (its delivery events).
    const ids = new Set(
      (await sql<{ id: string }>(`SELECT id FROM messages WHERE campaign_id = $1`, [ref.id])).map((m) => m.id),
    );
    const delivered = await waitFor(
      () => {
        const mine = new Set(
          seen
            .filter((e) => e.type === 'message.delivered' && ids.has(e.data.message_id!))
            .map((e) => e.data.message_id),
        );
        return mine.size >= 20 && mine;
      },
      10_000,
      'the delivered events',
    );
    expect(delivered.size).toBe(20);

    // The pause was told once, with the counts read when it paused.
    const pause = await told(ref.id, 'campaign.paused');
    expect(pause.data).toMatchObject({ state: 'paused', reason: 'budget_reached' });
    expect(seen.filter((e) => e.type === 'campaign.paused' && e.data.campaign_id === ref.id)).toHaveLength(1);
  });

  it('pause, resume and cancel each answer and tell the same counts, read after the change', async () => {
    const ref = await launch('Events', 12, () => false, { rate: 1 });
    await waitFor(
      async () => {
        const view = await rpc.call(CAMPAIGNS_RPC.get, ref);
        return view.counts.pending < 12 && view;
      },
      20_000,
      'a first send',
      200,
    );

    const check = async (answer: CampaignView, type: string, state: string) => {
      expect(answer.state).toBe(state);
      const event = await told(ref.id, type);
      expect(event.data).toMatchObject({ campaign_id: ref.id, state });
      expect(event.data.counts).toEqual(answer.counts);
      return event;
    };
    const paused = await rpc.call(CAMPAIGNS_RPC.pause, ref);
    await check(paused, 'campaign.paused', 'paused');

    const resumed = await rpc.call(CAMPAIGNS_RPC.resume, ref);
    const resumedEvent = await check(resumed, 'campaign.resumed', 'running');
    expect(resumedEvent.data).toMatchObject({ reason: null });

    const cancelled = await rpc.call(CAMPAIGNS_RPC.cancel, ref);
    await check(cancelled, 'campaign.cancelled', 'cancelled');
    expect(cancelled.counts.pending).toBe(0);
    expect(cancelled.counts.skipped).toBeGreaterThan(0);
    for (const type of ['campaign.resumed', 'campaign.cancelled']) {
      expect(seen.filter((e) => e.type === type && e.data.campaign_id === ref.id)).toHaveLength(1);
    }
  });
});
