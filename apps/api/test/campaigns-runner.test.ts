import { CAMPAIGNS_RPC, unixSeconds } from '@app/contracts';
import { rpcProblem, waitFor } from '@app/testing';
import { Clock } from '@app/server';
import { CampaignPassCostMeter } from '../src/campaigns/campaign-pass-cost';
import { ConversationsService } from '../src/conversations/conversations.service';
import { CampaignRunner } from '../src/campaigns/campaign-runner';
import { CampaignsRepository } from '../src/campaigns/campaigns.repository';
import { CampaignsService } from '../src/campaigns/campaigns.service';
import { BillingService } from '../src/billing/billing.service';
import { MessagePrices } from '../src/billing/message-prices';
import { ApiConfig } from '../src/config';
import { ConsentService } from '../src/consent/consent.service';
import { GatewaySendsService } from '../src/sending';
import { FrequencyRulesService } from '../src/campaigns/frequency-rules';
import { campaignRunnerFixture } from './support/campaign-runner-fixture';

/**
 * The campaign runner on the real database and broker: recipients loaded and launched over the
 * gateway's request/reply subjects, ticks run on demand, the send path's every refusal acted on.
 */
describe('campaign runner', () => {
  const { f, sql, phone, recipient, launched, get, messagesOf, rowsOf, tickUntil, sendableApp } =
    campaignRunnerFixture('campaigns-runner');

  it('sends each of 50 recipients exactly one message, skips the opted-out and excluded ones, and completes', async () => {
    const app = await sendableApp({ message_limit: 'TIER_10K' });
    await f.platform.apps
      .api!.get(ConsentService)
      .apply(f.user.userId, [
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
    const page = await f.rpc.call(CAMPAIGNS_RPC.recipients, { account_id: f.accountId, id: started.id, limit: 10 });
    expect(page.data.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(page.next_after).toBe(10);
    expect(page.data[6]).toMatchObject({ status: 'skipped', skip_reason: 'opted_out', message_id: null });
    expect(page.data[0]).toMatchObject({ status: 'queued', channel: 'whatsapp', external_id: 'ext-1' });
    expect(JSON.stringify(page)).not.toContain('route');
    const skipped = await f.rpc.call(CAMPAIGNS_RPC.recipients, {
      account_id: f.accountId,
      id: started.id,
      status: 'skipped',
      limit: 100,
    });
    expect(skipped.data.map((r) => r.seq)).toEqual([7, 51]);

    // The start and the completion were each told once, with the counts.
    const told = await waitFor(() => {
      const mine = f.events.filter((e) => e.data.campaign_id === started.id);
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
    expect(await f.runner.tick()).toBe(5);
    const first = (await messagesOf(started.id)).length;
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(5);

    const paused = await f.rpc.call(CAMPAIGNS_RPC.pause, { account_id: f.accountId, id: started.id });
    expect(paused).toMatchObject({ state: 'paused', pause_reason: 'requested', estimated_finish_at: null });
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 300));
      await f.runner.tick();
    }
    expect(await messagesOf(started.id)).toHaveLength(first);
    const again = await rpcProblem(f.rpc.call(CAMPAIGNS_RPC.pause, { account_id: f.accountId, id: started.id }));
    expect(again).toMatchObject({ status: 409, slug: 'campaign-state' });

    const resumed = await f.rpc.call(CAMPAIGNS_RPC.resume, { account_id: f.accountId, id: started.id });
    expect(resumed).toMatchObject({ state: 'running', pause_reason: null });
    await tickUntil(started.id, 'completed');
    expect(await messagesOf(started.id)).toHaveLength(20);
  });

  it('a recipient whose send already committed gets no second message', async () => {
    const app = await sendableApp({ message_limit: 'TIER_10K' });
    const started = await launched(app, [recipient(200), recipient(201)]);
    const api = f.platform.apps.api!;
    const c = (await api.get(CampaignsRepository).find(started.id))!;
    const send = () =>
      api.get(GatewaySendsService).sendForCampaign({
        campaignId: c.id,
        seq: 200,
        userId: f.user.userId,
        accountId: f.accountId,
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
    await f.platform.apps
      .api!.get(ConsentService)
      .apply(f.user.userId, [
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

  it('waits at its budget while holds are in flight, pauses once what was captured leaves no room, and at the balance', async () => {
    const app = await sendableApp({ message_limit: 'TIER_10K' });
    // UTILITY on WhatsApp costs 0.02: a budget of 0.05 holds two messages.
    const started = await launched(
      app,
      Array.from({ length: 5 }, (_, i) => recipient(700 + i)),
      { budget: 0.05 },
    );
    await f.runner.tick();
    // Two held leave no room: the campaign waits for its holds to settle, claiming nobody meanwhile.
    const waiting = await get(started.id);
    expect(waiting).toMatchObject({ state: 'running', money: { held: 0.04, spent: 0, committed: 0.04 } });
    expect(await messagesOf(started.id)).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(await f.runner.tick()).toBe(0);
    // A failed message's hold released frees its room: the next recipient is sent.
    const billing = f.platform.apps.api!.get(BillingService);
    const [failed, delivered] = await messagesOf(started.id);
    await billing.release(failed.id);
    await billing.capture(delivered.id);
    await new Promise((r) => setTimeout(r, 300));
    await f.runner.tick();
    expect(await messagesOf(started.id)).toHaveLength(3);
    expect(await get(started.id)).toMatchObject({ state: 'running', money: { held: 0.02, spent: 0.02 } });
    // Captured, 0.04 leaves 0.01, less than the next message's price: it pauses.
    const third = (await messagesOf(started.id)).find((m) => m.id !== failed.id && m.id !== delivered.id)!;
    await billing.capture(third.id);
    await f.runner.tick();
    const paused = await get(started.id);
    expect(paused).toMatchObject({
      state: 'paused',
      pause_reason: 'budget_reached',
      money: { held: 0, spent: 0.04, committed: 0.04 },
    });
    expect(paused.pause_detail).toContain('0.0100');
    const told = await waitFor(() =>
      f.events.find((e) => e.data.campaign_id === started.id && e.type === 'campaign.paused'),
    );
    expect(told.data).toMatchObject({ state: 'paused', reason: 'budget_reached', counts: paused.counts });
    expect(paused.counts).toMatchObject({ queued: 3, pending: 2 });

    // Raising the budget is a new campaign's matter; a poor tenant's campaign pauses at its balance.
    const poor = await f.factory.user('system', { balance: 0.03 });
    const poorApp = await f.factory.activeApp(poor.userId, { message_limit: 'TIER_10K' });
    await f.factory.sendableTemplate(poorApp.id, { name: 'camp_tpl', body: 'Hello {{1}}', category: 'UTILITY' });
    const draft = await f.rpc.call(CAMPAIGNS_RPC.create, {
      account_id: f.accountId,
      user_id: poor.userId,
      definition: {
        name: 'Poor',
        template: 'camp_tpl',
        params: ['x'],
        audience: { list: 'a' },
        channels: ['whatsapp'],
      },
    });
    const ref = { account_id: f.accountId, id: draft.id };
    await f.rpc.call(CAMPAIGNS_RPC.load, {
      ...ref,
      reset: true,
      recipients: [recipient(1), recipient(2), recipient(3)],
    });
    await f.rpc.call(CAMPAIGNS_RPC.launch, { ...ref, template_app_id: poorApp.id, total: 3 });
    await f.runner.tick();
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
    const api = f.platform.apps.api!;
    const second = new CampaignRunner(
      api.get(CampaignsRepository),
      api.get(CampaignsService),
      api.get(GatewaySendsService),
      api.get(MessagePrices),
      api.get(Clock),
      api.get(ApiConfig),
      api.get(FrequencyRulesService),
      api.get(ConversationsService),
      new CampaignPassCostMeter(),
    );
    const app = await sendableApp({ message_limit: 'TIER_10K' });
    const started = await launched(
      app,
      Array.from({ length: 200 }, (_, i) => recipient(1000 + i)),
    );
    for (let i = 0; i < 40 && (await get(started.id)).state !== 'completed'; i++) {
      await Promise.all([f.runner.tick(), second.tick()]);
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
    expect(await f.runner.tick()).toBe(1);
    await sql(`UPDATE templates SET status = 'PAUSED' WHERE app_id = $1`, [app.id]);
    await new Promise((r) => setTimeout(r, 1100));
    await f.runner.tick();
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
    await f.runner.tick();
    await f.runner.tick();
    const rows = await rowsOf(started.id);
    expect(rows[0].state).toBe('pending');
    const wait = new Date(rows[0].next_at).getTime() - now;
    expect(wait).toBeGreaterThan(59 * 60_000);
    expect(wait).toBeLessThanOrEqual(61 * 60_000);
    expect(rows[1].state).toBe('queued');
    const view = await get(started.id);
    expect(view).toMatchObject({ state: 'running', counts: { pending: 1, queued: 1 } });
    const report = await f.rpc.call(CAMPAIGNS_RPC.recipients, { account_id: f.accountId, id: started.id, limit: 1 });
    expect(report.data[0].next_attempt_at).toBe(unixSeconds(new Date(rows[0].next_at)));
    await f.rpc.call(CAMPAIGNS_RPC.cancel, { account_id: f.accountId, id: started.id });
    expect((await rowsOf(started.id))[0]).toMatchObject({ state: 'skipped', skip_reason: 'cancelled' });
  });

  it('a tier smaller than the audience defers the rest until the window frees places', async () => {
    const app = await sendableApp({ message_limit: 'TIER_50' });
    const started = await launched(
      app,
      Array.from({ length: 60 }, (_, i) => recipient(400 + i)),
    );
    await f.runner.tick();
    await f.runner.tick();
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
});
