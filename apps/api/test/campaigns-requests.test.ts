import { randomUUID } from 'node:crypto';
import { CAMPAIGNS_RPC, CampaignDefinition, newMessageId } from '@app/contracts';
import { rpcProblem } from '@app/testing';
import { ConsentService } from '../src/consent/consent.service';
import { campaignRunnerFixture } from './support/campaign-runner-fixture';

/**
 * The campaigns' requests from the gateway on the real database and broker: the definition's
 * check, the problems, the estimate's quote and consent dry run, and the view of a large campaign.
 */
describe('campaign requests', () => {
  const { f, sql, phone, recipient, launched, get, sendableApp } = campaignRunnerFixture('campaigns-requests');

  it("checks a definition by the gateway's rules: Unix seconds kept as the instant, a budget past 1e9 named", async () => {
    const definition = {
      name: 'Timed',
      template: 'camp_tpl',
      params: [],
      audience: { list: 'a' },
      channels: ['whatsapp' as const],
      schedule: { start_at: 1_796_104_800, end_by: '2026-12-02T09:00:00.123456789+03:00' },
      budget: 1e9,
    };
    const draft = await f.rpc.call(CAMPAIGNS_RPC.create, {
      account_id: f.accountId,
      user_id: f.user.userId,
      definition,
    });
    expect(draft.schedule).toEqual({ start_at: '2026-12-01T06:00:00.000Z', end_by: definition.schedule.end_by });
    expect(draft.budget).toBe(1e9);
    const refused = await rpcProblem(
      f.rpc.call(CAMPAIGNS_RPC.create, {
        account_id: f.accountId,
        user_id: f.user.userId,
        definition: { ...definition, budget: 1e9 + 1, schedule: { start_at: '2026-12-01T09:00:00' } },
      }),
    );
    expect(refused).toMatchObject({ status: 400, slug: 'validation-error' });
    expect((refused.errors as { field: string }[]).map((e) => e.field).sort()).toEqual(['budget', 'schedule.start_at']);
  });

  it('answers problems: another account 403, unknown 404, a launched campaign is no draft (409)', async () => {
    const app = await sendableApp();
    const started = await launched(app, [recipient(500)], { schedule: { start_at: '2099-01-01T00:00:00Z' } });
    expect(started.state).toBe('scheduled');
    expect(await rpcProblem(f.rpc.call(CAMPAIGNS_RPC.get, { account_id: randomUUID(), id: started.id }))).toMatchObject(
      {
        status: 403,
      },
    );
    expect(
      await rpcProblem(f.rpc.call(CAMPAIGNS_RPC.get, { account_id: f.accountId, id: newMessageId() })),
    ).toMatchObject({
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
      await rpcProblem(f.rpc.call(CAMPAIGNS_RPC.update, { account_id: f.accountId, id: started.id, definition })),
    ).toMatchObject({ status: 409, slug: 'campaign-not-draft' });
    expect(
      await rpcProblem(f.rpc.call(CAMPAIGNS_RPC.delete, { account_id: f.accountId, id: started.id })),
    ).toMatchObject({
      status: 409,
    });

    // A draft whose load is short of its total is not launched.
    const draft = await f.rpc.call(CAMPAIGNS_RPC.create, {
      account_id: f.accountId,
      user_id: f.user.userId,
      definition,
    });
    await f.rpc.call(CAMPAIGNS_RPC.load, {
      account_id: f.accountId,
      id: draft.id,
      reset: true,
      recipients: [recipient(1)],
    });
    expect(
      await rpcProblem(
        f.rpc.call(CAMPAIGNS_RPC.launch, { account_id: f.accountId, id: draft.id, template_app_id: app.id, total: 2 }),
      ),
    ).toMatchObject({ status: 409, slug: 'campaign-incomplete' });
    // Bad input is a 400 naming the field, never a 500.
    const bad = await rpcProblem(
      f.rpc.call(CAMPAIGNS_RPC.create, {
        account_id: f.accountId,
        user_id: f.user.userId,
        definition: { ...definition, channels: ['fax' as 'max'] },
      }),
    );
    expect(bad).toMatchObject({ status: 400 });
    expect(JSON.stringify(bad)).toContain('channels');
    const badZone = await rpcProblem(
      f.rpc.call(CAMPAIGNS_RPC.load, {
        account_id: f.accountId,
        id: draft.id,
        reset: false,
        recipients: [recipient(2, { time_zone: 'Mars/Olympus' })],
      }),
    );
    expect(badZone).toMatchObject({ status: 400 });
    const otherChannel = await rpcProblem(
      f.rpc.call(CAMPAIGNS_RPC.load, {
        account_id: f.accountId,
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
    const unknown = await f.rpc.call(CAMPAIGNS_RPC.create, {
      account_id: f.accountId,
      user_id: f.user.userId,
      definition: { ...definition, template: 'no_such_template' },
    });
    const refused = await rpcProblem(
      f.rpc.call(CAMPAIGNS_RPC.quote, { account_id: f.accountId, id: unknown.id, template_app_id: app.id }),
    );
    expect(refused).toMatchObject({ status: 400 });
    expect(JSON.stringify(refused)).toContain('template');
  });

  it('launches with the last page in one call; the same launch key again answers the campaign, another is 409', async () => {
    const app = await sendableApp();
    const draft = await f.rpc.call(CAMPAIGNS_RPC.create, {
      account_id: f.accountId,
      user_id: f.user.userId,
      definition: {
        name: 'One call',
        template: 'camp_tpl',
        params: ['{{contact.name}}'],
        audience: { list: 'a' },
        channels: ['whatsapp'],
      },
    });
    const ref = { account_id: f.accountId, id: draft.id };
    const page = { ...ref, reset: true, recipients: [recipient(701), recipient(702)] };
    const launch = { template_app_id: app.id, total: 2, launch_key: 'launch-701' };
    // A launch short of its total loads nothing and launches nothing.
    expect(
      await rpcProblem(f.rpc.call(CAMPAIGNS_RPC.load, { ...page, launch: { ...launch, total: 3 } })),
    ).toMatchObject({ status: 409, slug: 'campaign-incomplete' });
    expect(await get(draft.id)).toMatchObject({ state: 'draft', recipients: 0, counts: { pending: 0 } });
    expect(
      await rpcProblem(f.rpc.call(CAMPAIGNS_RPC.load, { ...page, launch: { ...launch, launch_key: '', total: -1 } })),
    ).toMatchObject({ status: 400, errors: [{ field: 'launch.total' }, { field: 'launch.launch_key' }] });

    const first = await f.rpc.call(CAMPAIGNS_RPC.load, { ...page, launch });
    expect(first.loaded).toBe(2);
    expect(first.campaign).toMatchObject({ id: draft.id, state: 'running', recipients: 2, counts: { pending: 2 } });
    // Its answer lost, the same request again answers the campaign it launched and loads nothing more.
    const again = await f.rpc.call(CAMPAIGNS_RPC.load, { ...page, launch });
    expect(again).toMatchObject({ loaded: 0, campaign: { id: draft.id, state: 'running', recipients: 2 } });
    expect(await f.rpc.call(CAMPAIGNS_RPC.launch, { ...ref, ...launch })).toMatchObject({
      id: draft.id,
      state: 'running',
    });
    const [row] = await sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM campaign_recipients WHERE campaign_id = $1`,
      [draft.id],
    );
    expect(row.n).toBe(2);
    // Another launch, or one without a key, is refused: the campaign launches once.
    for (const launch_key of ['another', null]) {
      expect(
        await rpcProblem(f.rpc.call(CAMPAIGNS_RPC.load, { ...page, launch: { ...launch, launch_key } })),
      ).toMatchObject({ status: 409, slug: 'campaign-state' });
      expect(await rpcProblem(f.rpc.call(CAMPAIGNS_RPC.launch, { ...ref, ...launch, launch_key }))).toMatchObject({
        status: 409,
        slug: 'campaign-state',
      });
    }
    // A page without a launch is no longer taken.
    expect(await rpcProblem(f.rpc.call(CAMPAIGNS_RPC.load, page))).toMatchObject({
      status: 409,
      slug: 'campaign-not-draft',
    });
  });

  it('quotes the template category, prices, balance, tier and pacing; consent answers the first allowed channel', async () => {
    const app = await sendableApp({ message_limit: 'TIER_250' });
    const draft = await f.rpc.call(CAMPAIGNS_RPC.create, {
      account_id: f.accountId,
      user_id: f.user.userId,
      definition: {
        name: 'Quote',
        template: 'camp_tpl',
        params: ['x'],
        audience: { list: 'a' },
        channels: ['whatsapp'],
      },
    });
    const quote = await f.rpc.call(CAMPAIGNS_RPC.quote, {
      account_id: f.accountId,
      id: draft.id,
      template_app_id: app.id,
    });
    expect(quote).toMatchObject({
      category: 'UTILITY',
      currency: 'USD',
      tier: { cap: 250, label: '250', remaining: 250 },
      pacing: { whatsapp: 80, telegram: 30, max: 30 },
      // The runner the estimate models: its tick and batch (and what its passes cost, once it sent).
      runner: { tick_ms: expect.any(Number), batch_max: expect.any(Number) },
    });
    expect(quote.prices.whatsapp).toBe(0.02);
    await f.platform.apps
      .api!.get(ConsentService)
      .apply(f.user.userId, [
        { channel: 'whatsapp', address: phone(900), purpose: 'all', state: 'opted_out', source: 'api' },
      ]);
    const consent = await f.rpc.call(CAMPAIGNS_RPC.consent, {
      user_id: f.user.userId,
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
      f.rpc.call(CAMPAIGNS_RPC.consent, {
        user_id: f.user.userId,
        category: 'UTILITY',
        routes: Array.from({ length: 5001 }, () => [{ channel: 'whatsapp' as const, to: phone(1) }]),
      }),
    );
    expect(tooMany).toMatchObject({ status: 400 });
  });

  it('reads the view of 100,000 recipients, half of them sent, with exact counts (its time is logged, not asserted)', async () => {
    const c = await f.rpc.call(CAMPAIGNS_RPC.create, {
      account_id: f.accountId,
      user_id: f.user.userId,
      definition: { name: 'Big', template: 'camp_tpl', params: ['x'], audience: { list: 'a' }, channels: ['whatsapp'] },
    });
    await sql(
      `INSERT INTO messages (id, user_id, account_id, channel, recipient, kind, category, priority, status, price, currency,
                             created_at, updated_at, campaign_id)
       SELECT $1 || '-' || g, $2, $3, 'whatsapp', '4476' || lpad(g::text, 7, '0'), 'TEMPLATE', 'UTILITY', 'service',
              CASE WHEN g % 5 = 0 THEN 'DELIVERED' ELSE 'SENT' END, 0.02, 'USD', now(), now(), $1::uuid
         FROM generate_series(1, 50000) g`,
      [c.id, f.user.userId, f.accountId],
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
    console.log(`campaign view of 100,000 recipients: ${ms} ms`);
  });
});
