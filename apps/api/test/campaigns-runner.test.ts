import { randomUUID } from 'node:crypto';
import { CAMPAIGNS_RPC, CampaignDefinition, CampaignRecipientInput, CampaignView, newMessageId } from '@app/contracts';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectNats, RpcClient } from '@app/messaging';
import { rpcProblem, waitFor } from '@app/testing';
import { Clock } from '@app/server';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { CampaignRunner } from '../src/campaigns/campaign-runner';
import { CampaignsRepository } from '../src/campaigns/campaigns.repository';
import { CampaignsService } from '../src/campaigns/campaigns.service';
import { MessagePrices } from '../src/billing/message-prices';
import { ApiConfig } from '../src/config';
import { ConsentService } from '../src/consent/consent.service';
import { GatewaySendsService } from '../src/messages/gateway-sends';
import type { AppEntity } from '../src/wa-apps/app.entity';

/**
 * The campaign runner on the real database and broker: recipients loaded and launched over the
 * gateway's request/reply subjects, ticks run on demand, the send path's every refusal acted on.
 */
describe('campaign runner', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let rpc: RpcClient;
  let user: TestUser;
  let runner: CampaignRunner;
  let nats: NatsConnection;
  /** Every campaign event published, in order. */
  const events: {
    type: string;
    data: { campaign_id: string; state: string; reason: string | null; counts: Record<string, number> };
  }[] = [];
  const accountId = randomUUID();

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'campaigns-runner',
      services: ['api'],
      env: { CAMPAIGN_TICK_MS: '60000', HOUSEKEEPING_INTERVAL_MS: '0' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    rpc = new RpcClient({ url: platform.infra.natsUrl, prefix: platform.infra.prefix, name: 'campaigns-test' });
    user = await factory.user('system', { balance: 100 });
    runner = platform.apps.api!.get(CampaignRunner);
    nats = await connectNats({ url: platform.infra.natsUrl, name: 'campaigns-test-events' });
    for (const type of ['campaign.started', 'campaign.paused', 'campaign.completed'] as const) {
      nats.subscribe(platform.infra.topology.eventSubject(type), {
        callback: (_err, msg) => {
          events.push(msg.json());
        },
      });
    }
  });

  afterAll(async () => {
    await nats?.close();
    await rpc?.onApplicationShutdown();
    await factory?.close();
    await platform?.stop();
  });

  const sql = <T = Record<string, unknown>>(query: string, params: unknown[] = []) =>
    factory.dataSource.query(query, params) as Promise<T[]>;
  const phone = (i: number) => `4475${String(i).padStart(7, '0')}`;
  const recipient = (seq: number, over: Partial<CampaignRecipientInput> = {}): CampaignRecipientInput => ({
    seq,
    contact_id: `contact-${seq}`,
    external_id: `ext-${seq}`,
    time_zone: 'UTC',
    route: [{ channel: 'whatsapp', to: phone(seq) }],
    params: [`Name ${seq}`],
    ...over,
  });

  /** A draft with its recipients loaded (two pages) and launched. */
  async function launched(
    app: AppEntity,
    recipients: CampaignRecipientInput[],
    over: Partial<CampaignDefinition> = {},
  ): Promise<CampaignView> {
    const definition: CampaignDefinition = {
      name: `Campaign ${Math.random().toString(36).slice(2, 8)}`,
      template: 'camp_tpl',
      params: ['{{contact.name}}'],
      audience: { list: 'customers' },
      channels: ['whatsapp'],
      ...over,
    };
    const draft = await rpc.call(CAMPAIGNS_RPC.create, { account_id: accountId, user_id: user.userId, definition });
    expect(draft.state).toBe('draft');
    const half = Math.ceil(recipients.length / 2);
    const ref = { account_id: accountId, id: draft.id };
    await rpc.call(CAMPAIGNS_RPC.load, { ...ref, reset: true, recipients: recipients.slice(0, half) });
    await rpc.call(CAMPAIGNS_RPC.load, { ...ref, reset: false, recipients: recipients.slice(half) });
    return rpc.call(CAMPAIGNS_RPC.launch, { ...ref, template_app_id: app.id, total: recipients.length });
  }

  const get = (id: string) => rpc.call(CAMPAIGNS_RPC.get, { account_id: accountId, id });
  const messagesOf = (id: string) =>
    sql<{ id: string; recipient: string }>(`SELECT id, recipient FROM messages WHERE campaign_id = $1`, [id]);
  const rowsOf = (id: string) =>
    sql<{ seq: number; state: string; skip_reason: string | null; message_id: string | null; next_at: Date }>(
      `SELECT seq, state, skip_reason, message_id, next_at FROM campaign_recipients WHERE campaign_id = $1 ORDER BY seq`,
      [id],
    );
  /** Ticks until the campaign is in `state` (each tick a little apart, so pacing credits time). */
  async function tickUntil(id: string, state: string, ticks = 40): Promise<CampaignView> {
    for (let i = 0; i < ticks; i++) {
      await runner.tick();
      const view = await get(id);
      if (view.state === state) return view;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`campaign ${id} did not become ${state}`);
  }
  async function sendableApp(opts: Parameters<ApiFactory['activeApp']>[1] = {}): Promise<AppEntity> {
    const app = await factory.activeApp(user.userId, opts);
    await factory.sendableTemplate(app.id, { name: 'camp_tpl', body: 'Hello {{1}}', category: 'UTILITY' });
    return app;
  }

  it('sends each of 50 recipients exactly one message, skips the opted-out and excluded ones, and completes', async () => {
    const app = await sendableApp({ message_limit: 'TIER_10K' });
    await platform.apps
      .api!.get(ConsentService)
      .apply(user.userId, [
        { channel: 'whatsapp', address: phone(7), purpose: 'all', state: 'opted_out', source: 'api' },
      ]);
    const recipients = [
      ...Array.from({ length: 50 }, (_, i) => recipient(i + 1)),
      recipient(51, { route: [], skip: 'no_identity' }),
    ];
    const started = await launched(app, recipients);
    expect(started.state).toBe('running');
    expect(started.recipients).toBe(51);

    const done = await tickUntil(started.id, 'completed');
    const messages = await messagesOf(started.id);
    expect(messages).toHaveLength(49);
    expect(new Set(messages.map((m) => m.recipient)).size).toBe(49);
    expect(messages.map((m) => m.recipient)).not.toContain(phone(7));

    const rows = await rowsOf(started.id);
    const byId = new Map(messages.map((m) => [m.id, m.recipient]));
    for (const r of rows) {
      if (r.seq === 7) expect(r).toMatchObject({ state: 'skipped', skip_reason: 'opted_out', message_id: null });
      else if (r.seq === 51) expect(r).toMatchObject({ state: 'skipped', skip_reason: 'no_identity' });
      else expect(byId.get(r.message_id!)).toBe(phone(r.seq));
    }
    expect(done.counts).toMatchObject({ pending: 0, queued: 49, skipped: 2 });
    expect(done.channels_used).toEqual({ whatsapp: 49 });
    expect(done.money.committed).toBeCloseTo(49 * 0.02, 4);
    expect(done.money.held).toBeCloseTo(49 * 0.02, 4);
    expect(done.completed_at).not.toBeNull();

    // The report, paged, with the skip reasons; the sealed route never comes back.
    const page = await rpc.call(CAMPAIGNS_RPC.recipients, { account_id: accountId, id: started.id, limit: 10 });
    expect(page.data.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(page.next_after).toBe(10);
    expect(page.data[6]).toMatchObject({ status: 'skipped', skip_reason: 'opted_out', message_id: null });
    expect(page.data[0]).toMatchObject({ status: 'queued', channel: 'whatsapp', external_id: 'ext-1' });
    expect(JSON.stringify(page)).not.toContain('route');
    const skipped = await rpc.call(CAMPAIGNS_RPC.recipients, {
      account_id: accountId,
      id: started.id,
      status: 'skipped',
      limit: 100,
    });
    expect(skipped.data.map((r) => r.seq)).toEqual([7, 51]);

    // The start and the completion were each told once, with the counts.
    const told = await waitFor(() => {
      const mine = events.filter((e) => e.data.campaign_id === started.id);
      return mine.length >= 2 && mine;
    });
    expect(told.map((e) => e.type)).toEqual(['campaign.started', 'campaign.completed']);
    expect(told[1].data).toMatchObject({
      state: 'completed',
      reason: null,
      counts: { queued: 49, skipped: 2, pending: 0 },
    });
  });

  it('a pause stops taking recipients; a resume finishes them', async () => {
    const app = await sendableApp({ message_limit: 'TIER_10K' });
    const started = await launched(
      app,
      Array.from({ length: 20 }, (_, i) => recipient(100 + i)),
      { rate: 5 },
    );
    // The campaign's rate (5/s) caps the first tick's full second of credit at 5 recipients.
    expect(await runner.tick()).toBe(5);
    const first = (await messagesOf(started.id)).length;
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(5);

    const paused = await rpc.call(CAMPAIGNS_RPC.pause, { account_id: accountId, id: started.id });
    expect(paused).toMatchObject({ state: 'paused', pause_reason: 'requested', estimated_finish_at: null });
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 300));
      await runner.tick();
    }
    expect(await messagesOf(started.id)).toHaveLength(first);
    const again = await rpcProblem(rpc.call(CAMPAIGNS_RPC.pause, { account_id: accountId, id: started.id }));
    expect(again).toMatchObject({ status: 409, slug: 'campaign-state' });

    const resumed = await rpc.call(CAMPAIGNS_RPC.resume, { account_id: accountId, id: started.id });
    expect(resumed).toMatchObject({ state: 'running', pause_reason: null });
    await tickUntil(started.id, 'completed');
    expect(await messagesOf(started.id)).toHaveLength(20);
  });

  it('a recipient whose send already committed gets no second message', async () => {
    const app = await sendableApp({ message_limit: 'TIER_10K' });
    const started = await launched(app, [recipient(200), recipient(201)]);
    const api = platform.apps.api!;
    const c = (await api.get(CampaignsRepository).find(started.id))!;
    const send = () =>
      api.get(GatewaySendsService).sendForCampaign({
        campaignId: c.id,
        seq: 200,
        userId: user.userId,
        accountId,
        app,
        template: {
          id: 0,
          name: 'camp_tpl',
          language: 'en',
          category: 'UTILITY',
          type: 'TEXT',
          status: 'APPROVED',
          header: null,
          body: { text: 'Hello {{1}}' },
          footer: null,
          buttons: [],
        },
        route: [{ channel: 'whatsapp', to: phone(200) }],
        params: ['Name 200'],
        mediaUrl: null,
        // The mark is lost (as if written by a send whose outcome never reached the runner).
        alsoWrite: async () => undefined,
      });
    const first = await send();
    const second = await send();
    expect(second).toMatchObject({ id: first.id, replayed: true });

    await tickUntil(started.id, 'completed');
    const messages = await messagesOf(started.id);
    expect(messages.filter((m) => m.recipient === phone(200))).toHaveLength(1);
    const rows = await rowsOf(started.id);
    expect(rows[0]).toMatchObject({ seq: 200, state: 'queued', message_id: first.id });
    expect(rows[1].state).toBe('queued');
  });

  it('sends over a failover route: the allowed channel carries it, every attempt names the campaign', async () => {
    const app = await sendableApp({ message_limit: 'TIER_10K' });
    await platform.apps
      .api!.get(ConsentService)
      .apply(user.userId, [
        { channel: 'whatsapp', address: phone(600), purpose: 'all', state: 'opted_out', source: 'api' },
      ]);
    const bot = { connection_id: 'bot-1', credential: 'sealed-credential' };
    const started = await launched(
      app,
      [
        recipient(600, {
          route: [
            { channel: 'whatsapp', to: phone(600) },
            { channel: 'telegram', to: '600', sender: bot },
          ],
        }),
        recipient(601, {
          route: [
            { channel: 'whatsapp', to: phone(601) },
            { channel: 'telegram', to: '601', sender: bot },
          ],
        }),
      ],
      { channels: ['whatsapp', 'telegram'] },
    );
    const done = await tickUntil(started.id, 'completed');
    expect(done.channels_used).toEqual({ whatsapp: 1, telegram: 1 });
    const rows = await sql<{ seq: number; channel: string; message_id: string }>(
      `SELECT seq, channel, message_id FROM campaign_recipients WHERE campaign_id = $1 ORDER BY seq`,
      [started.id],
    );
    expect(rows.map((r) => r.channel)).toEqual(['telegram', 'whatsapp']);
    const [first] = await sql<{ channel: string; campaign_id: string }>(
      `SELECT channel, campaign_id FROM messages WHERE id = $1`,
      [rows[0].message_id],
    );
    expect(first).toEqual({ channel: 'telegram', campaign_id: started.id });
    // The step kept for a later attempt carries the campaign, so that attempt's message names it too.
    const [kept] = await sql<{ step: { campaignId: string; channel: string } }>(
      `SELECT step FROM failover_steps WHERE parent_id = $1`,
      [rows[1].message_id],
    );
    expect(kept.step).toMatchObject({ channel: 'telegram', campaignId: started.id });
    // Each recipient's price counts once, at the channel that took it.
    expect(done.money.committed).toBeGreaterThan(0);
  });

  it('pauses at its budget, and at the balance, telling each pause once', async () => {
    const app = await sendableApp({ message_limit: 'TIER_10K' });
    // UTILITY on WhatsApp costs 0.02: a budget of 0.05 holds two messages.
    const started = await launched(
      app,
      Array.from({ length: 5 }, (_, i) => recipient(700 + i)),
      { budget: 0.05 },
    );
    await runner.tick();
    const paused = await get(started.id);
    expect(paused).toMatchObject({ state: 'paused', pause_reason: 'budget_reached', money: { committed: 0.04 } });
    expect(await messagesOf(started.id)).toHaveLength(2);
    const told = await waitFor(() =>
      events.find((e) => e.data.campaign_id === started.id && e.type === 'campaign.paused'),
    );
    expect(told.data).toMatchObject({ state: 'paused', reason: 'budget_reached', counts: { queued: 2, pending: 3 } });

    // Raising the budget is a new campaign's matter; a poor tenant's campaign pauses at its balance.
    const poor = await factory.user('system', { balance: 0.03 });
    const poorApp = await factory.activeApp(poor.userId, { message_limit: 'TIER_10K' });
    await factory.sendableTemplate(poorApp.id, { name: 'camp_tpl', body: 'Hello {{1}}', category: 'UTILITY' });
    const draft = await rpc.call(CAMPAIGNS_RPC.create, {
      account_id: accountId,
      user_id: poor.userId,
      definition: {
        name: 'Poor',
        template: 'camp_tpl',
        params: ['x'],
        audience: { list: 'a' },
        channels: ['whatsapp'],
      },
    });
    const ref = { account_id: accountId, id: draft.id };
    await rpc.call(CAMPAIGNS_RPC.load, { ...ref, reset: true, recipients: [recipient(1), recipient(2), recipient(3)] });
    await rpc.call(CAMPAIGNS_RPC.launch, { ...ref, template_app_id: poorApp.id, total: 3 });
    await runner.tick();
    const stopped = await get(draft.id);
    expect(stopped).toMatchObject({
      state: 'paused',
      pause_reason: 'insufficient_balance',
      counts: { queued: 1, pending: 2 },
    });
    expect(stopped.pause_detail).toContain('balance');
    // Nothing was left claimed: a resume takes them up at once (and pauses again, the balance unchanged).
    const [{ claimed }] = await sql<{ claimed: number }>(
      `SELECT count(*)::int AS claimed FROM campaign_recipients WHERE campaign_id = $1 AND claimed_until IS NOT NULL`,
      [draft.id],
    );
    expect(claimed).toBe(0);
  });

  it('two runners (replicas) share a campaign: each recipient is sent once', async () => {
    const api = platform.apps.api!;
    const second = new CampaignRunner(
      api.get(CampaignsRepository),
      api.get(CampaignsService),
      api.get(GatewaySendsService),
      api.get(MessagePrices),
      api.get(Clock),
      api.get(ApiConfig),
    );
    const app = await sendableApp({ message_limit: 'TIER_10K' });
    const started = await launched(
      app,
      Array.from({ length: 200 }, (_, i) => recipient(1000 + i)),
    );
    for (let i = 0; i < 40 && (await get(started.id)).state !== 'completed'; i++) {
      await Promise.all([runner.tick(), second.tick()]);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await get(started.id)).state).toBe('completed');
    const messages = await messagesOf(started.id);
    expect(messages).toHaveLength(200);
    expect(new Set(messages.map((m) => m.recipient)).size).toBe(200);
  });

  it('a template that stops being sendable pauses the campaign with its reason', async () => {
    const app = await sendableApp({ message_limit: 'TIER_10K' });
    const started = await launched(
      app,
      Array.from({ length: 3 }, (_, i) => recipient(800 + i)),
      { rate: 1 },
    );
    expect(await runner.tick()).toBe(1);
    await sql(`UPDATE templates SET status = 'PAUSED' WHERE app_id = $1`, [app.id]);
    await new Promise((r) => setTimeout(r, 1100));
    await runner.tick();
    const view = await get(started.id);
    expect(view).toMatchObject({
      state: 'paused',
      pause_reason: 'template_unavailable',
      counts: { queued: 1, pending: 2 },
    });
    expect(view.pause_detail).toBeTruthy();
    const [{ claimed }] = await sql<{ claimed: number }>(
      `SELECT count(*)::int AS claimed FROM campaign_recipients WHERE campaign_id = $1 AND claimed_until IS NOT NULL`,
      [started.id],
    );
    expect(claimed).toBe(0);
  });

  it('quiet hours defer a recipient where it is night now, not one where it is day', async () => {
    const app = await sendableApp({ message_limit: 'TIER_10K' });
    const hhmm = (d: Date) => d.toISOString().slice(11, 16);
    const now = Date.now();
    // Quiet from an hour ago to an hour from now in UTC; twelve hours away it is the middle of the day.
    const quiet = { start: hhmm(new Date(now - 3600_000)), end: hhmm(new Date(now + 3600_000)) };
    const started = await launched(
      app,
      [recipient(300, { time_zone: 'UTC' }), recipient(301, { time_zone: 'Etc/GMT-12' })],
      { quiet_hours: quiet },
    );
    await runner.tick();
    await runner.tick();
    const rows = await rowsOf(started.id);
    expect(rows[0].state).toBe('pending');
    const wait = new Date(rows[0].next_at).getTime() - now;
    expect(wait).toBeGreaterThan(59 * 60_000);
    expect(wait).toBeLessThanOrEqual(61 * 60_000);
    expect(rows[1].state).toBe('queued');
    const view = await get(started.id);
    expect(view).toMatchObject({ state: 'running', counts: { pending: 1, queued: 1 } });
    const report = await rpc.call(CAMPAIGNS_RPC.recipients, { account_id: accountId, id: started.id, limit: 1 });
    expect(report.data[0].next_attempt_at).toBe(new Date(rows[0].next_at).toISOString());
    await rpc.call(CAMPAIGNS_RPC.cancel, { account_id: accountId, id: started.id });
    expect((await rowsOf(started.id))[0]).toMatchObject({ state: 'skipped', skip_reason: 'cancelled' });
  });

  it('a tier smaller than the audience defers the rest until the window frees places', async () => {
    const app = await sendableApp({ message_limit: 'TIER_50' });
    const started = await launched(
      app,
      Array.from({ length: 60 }, (_, i) => recipient(400 + i)),
    );
    await runner.tick();
    await runner.tick();
    expect(await messagesOf(started.id)).toHaveLength(50);
    const waiting = (await rowsOf(started.id)).filter((r) => r.state === 'pending');
    expect(waiting).toHaveLength(10);
    for (const r of waiting) expect(new Date(r.next_at).getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    expect((await get(started.id)).state).toBe('running');

    // A day later: the window's recipients leave it, the waiting ones are due.
    await sql(
      `UPDATE tier_recipients SET first_sent_at = first_sent_at - interval '24 hours',
              last_sent_at = last_sent_at - interval '24 hours' WHERE app_id = $1`,
      [app.id],
    );
    await sql(`UPDATE campaign_recipients SET next_at = now() WHERE campaign_id = $1 AND state = 'pending'`, [
      started.id,
    ]);
    await sql(`UPDATE campaigns SET whatsapp_wait_until = now() WHERE id = $1`, [started.id]);
    await tickUntil(started.id, 'completed');
    expect(await messagesOf(started.id)).toHaveLength(60);
  });

  it('answers problems: another account 403, unknown 404, a launched campaign is no draft (409)', async () => {
    const app = await sendableApp();
    const started = await launched(app, [recipient(500)], { schedule: { start_at: '2099-01-01T00:00:00Z' } });
    expect(started.state).toBe('scheduled');
    expect(await rpcProblem(rpc.call(CAMPAIGNS_RPC.get, { account_id: randomUUID(), id: started.id }))).toMatchObject({
      status: 403,
    });
    expect(await rpcProblem(rpc.call(CAMPAIGNS_RPC.get, { account_id: accountId, id: newMessageId() }))).toMatchObject({
      status: 404,
    });
    const { id: _id, ...view } = started;
    void _id;
    const definition: CampaignDefinition = {
      name: view.name,
      template: view.template,
      params: view.params,
      audience: view.audience,
      channels: view.channels,
    };
    expect(
      await rpcProblem(rpc.call(CAMPAIGNS_RPC.update, { account_id: accountId, id: started.id, definition })),
    ).toMatchObject({ status: 409, slug: 'campaign-not-draft' });
    expect(await rpcProblem(rpc.call(CAMPAIGNS_RPC.delete, { account_id: accountId, id: started.id }))).toMatchObject({
      status: 409,
    });

    // A draft whose load is short of its total is not launched.
    const draft = await rpc.call(CAMPAIGNS_RPC.create, { account_id: accountId, user_id: user.userId, definition });
    await rpc.call(CAMPAIGNS_RPC.load, {
      account_id: accountId,
      id: draft.id,
      reset: true,
      recipients: [recipient(1)],
    });
    expect(
      await rpcProblem(
        rpc.call(CAMPAIGNS_RPC.launch, { account_id: accountId, id: draft.id, template_app_id: app.id, total: 2 }),
      ),
    ).toMatchObject({ status: 409, slug: 'campaign-incomplete' });
    // Bad input is a 400 naming the field, never a 500.
    const bad = await rpcProblem(
      rpc.call(CAMPAIGNS_RPC.create, {
        account_id: accountId,
        user_id: user.userId,
        definition: { ...definition, channels: ['fax' as 'max'] },
      }),
    );
    expect(bad).toMatchObject({ status: 400 });
    expect(JSON.stringify(bad)).toContain('channels');
    const badZone = await rpcProblem(
      rpc.call(CAMPAIGNS_RPC.load, {
        account_id: accountId,
        id: draft.id,
        reset: false,
        recipients: [recipient(2, { time_zone: 'Mars/Olympus' })],
      }),
    );
    expect(badZone).toMatchObject({ status: 400 });
    const otherChannel = await rpcProblem(
      rpc.call(CAMPAIGNS_RPC.load, {
        account_id: accountId,
        id: draft.id,
        reset: false,
        recipients: [
          recipient(2, { route: [{ channel: 'max', to: '2', sender: { connection_id: 'b', credential: 'c' } }] }),
        ],
      }),
    );
    expect(otherChannel).toMatchObject({ status: 400 });
    expect(JSON.stringify(otherChannel)).toContain('recipients[0].route');
    // A template that does not resolve is the gateway's field error.
    const unknown = await rpc.call(CAMPAIGNS_RPC.create, {
      account_id: accountId,
      user_id: user.userId,
      definition: { ...definition, template: 'no_such_template' },
    });
    const refused = await rpcProblem(
      rpc.call(CAMPAIGNS_RPC.quote, { account_id: accountId, id: unknown.id, template_app_id: app.id }),
    );
    expect(refused).toMatchObject({ status: 400 });
    expect(JSON.stringify(refused)).toContain('template');
  });

  it('quotes the template category, prices, balance, tier and pacing; consent answers the first allowed channel', async () => {
    const app = await sendableApp({ message_limit: 'TIER_250' });
    const draft = await rpc.call(CAMPAIGNS_RPC.create, {
      account_id: accountId,
      user_id: user.userId,
      definition: {
        name: 'Quote',
        template: 'camp_tpl',
        params: ['x'],
        audience: { list: 'a' },
        channels: ['whatsapp'],
      },
    });
    const quote = await rpc.call(CAMPAIGNS_RPC.quote, { account_id: accountId, id: draft.id, template_app_id: app.id });
    expect(quote).toMatchObject({
      category: 'UTILITY',
      currency: 'USD',
      tier: { cap: 250, label: '250', remaining: 250 },
      pacing: { whatsapp: 80, telegram: 30, max: 30 },
    });
    expect(quote.prices.whatsapp).toBe(0.02);
    await platform.apps
      .api!.get(ConsentService)
      .apply(user.userId, [
        { channel: 'whatsapp', address: phone(900), purpose: 'all', state: 'opted_out', source: 'api' },
      ]);
    const consent = await rpc.call(CAMPAIGNS_RPC.consent, {
      user_id: user.userId,
      category: 'UTILITY',
      routes: [
        [
          { channel: 'whatsapp', to: phone(900) },
          { channel: 'telegram', to: '12345' },
        ],
        [{ channel: 'whatsapp', to: phone(901) }],
        [{ channel: 'whatsapp', to: phone(900) }],
      ],
    });
    expect(consent.allowed).toEqual([{ index: 1 }, { index: 0 }, { index: -1, reason: 'opted_out' }]);
    const tooMany = await rpcProblem(
      rpc.call(CAMPAIGNS_RPC.consent, {
        user_id: user.userId,
        category: 'UTILITY',
        routes: Array.from({ length: 5001 }, () => [{ channel: 'whatsapp' as const, to: phone(1) }]),
      }),
    );
    expect(tooMany).toMatchObject({ status: 400 });
  });

  it('reads the view of 100,000 recipients, half of them sent, in well under 200 ms', async () => {
    const c = await rpc.call(CAMPAIGNS_RPC.create, {
      account_id: accountId,
      user_id: user.userId,
      definition: { name: 'Big', template: 'camp_tpl', params: ['x'], audience: { list: 'a' }, channels: ['whatsapp'] },
    });
    await sql(
      `INSERT INTO messages (id, user_id, account_id, channel, recipient, kind, category, priority, status, price, currency,
                             created_at, updated_at, campaign_id)
       SELECT $1 || '-' || g, $2, $3, 'whatsapp', '4476' || lpad(g::text, 7, '0'), 'TEMPLATE', 'UTILITY', 'service',
              CASE WHEN g % 5 = 0 THEN 'DELIVERED' ELSE 'SENT' END, 0.02, 'USD', now(), now(), $1::uuid
         FROM generate_series(1, 50000) g`,
      [c.id, user.userId, accountId],
    );
    await sql(
      `INSERT INTO campaign_recipients (campaign_id, seq, contact_id, time_zone, route, first_channel, params, state,
                                        message_id, channel, queued_at)
       SELECT $1::uuid, g, 'c' || g, 'UTC', '[]', 'whatsapp', '[]', CASE WHEN g <= 50000 THEN 'queued' ELSE 'pending' END,
              CASE WHEN g <= 50000 THEN $1::text || '-' || g END, CASE WHEN g <= 50000 THEN 'whatsapp' END,
              CASE WHEN g <= 50000 THEN now() - interval '2 minutes' END
         FROM generate_series(1, 100000) g`,
      [c.id],
    );
    await sql(`ANALYZE campaign_recipients`);
    await sql(`ANALYZE messages`);
    await get(c.id);
    const t0 = Date.now();
    const view = await get(c.id);
    const ms = Date.now() - t0;
    expect(view.counts).toMatchObject({ pending: 50000, sent: 40000, delivered: 10000 });
    expect(view.channels_used).toEqual({ whatsapp: 50000 });
    expect(ms).toBeLessThan(300);
    console.log(`campaign view of 100,000 recipients: ${ms} ms`);
  });
});
