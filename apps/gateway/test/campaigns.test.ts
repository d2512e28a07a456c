import { v7 as uuidv7 } from 'uuid';
import { startCampaignsApi } from './support/campaigns-api';
import { campaignsGateway, Json } from './support/campaigns-gateway';

/**
 * The gateway's campaigns resource against a stand-in for the api's campaign subjects (same NATS
 * request/reply shapes): definitions checked and named field by field, drafts changed and deleted,
 * other accounts refused, the audience resolved from the account's contacts (a list, contacts by
 * id and ext:<external id> with duplicates, a filter) with routes, params and zones, and the
 * estimate's exclusions, cost and time (the launch's pages and the report: campaigns-launch.test.ts).
 */
describe('gateway campaigns', () => {
  const g = campaignsGateway('gw-campaigns');
  const { call, fields, definition, create, contact, loaded } = g;

  it('creates a draft, reads, lists, changes and deletes it; refuses another account, unknown ids and no token', async () => {
    const created = await create({ rate: 5, budget: 20, quiet_hours: { start: '21:00', end: '09:00' } });
    expect(created).toMatchObject({ state: 'draft', name: 'November sale', rate: 5, audience: { list: 'vip' } });
    expect((await call(`/v1/campaigns/${created.id}`)).body).toEqual(created);
    const second = await create({ name: 'Second' });
    const page = await call('/v1/campaigns?limit=1');
    expect(page.body.data.map((c: Json) => c.id)).toEqual([second.id]);
    const next = await call(`/v1/campaigns?limit=1&cursor=${page.body.next_cursor}`);
    expect(next.body.data.map((c: Json) => c.id)).toEqual([created.id]);
    expect(fields(await call('/v1/campaigns?state=done&limit=0'))).toEqual(['limit', 'state']);

    const patched = await call(`/v1/campaigns/${created.id}`, {
      method: 'PATCH',
      body: { name: 'Renamed', rate: null, quiet_hours: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Renamed', rate: null, quiet_hours: null, budget: 20 });
    // The merged definition is checked whole.
    const badPatch = await call(`/v1/campaigns/${created.id}`, {
      method: 'PATCH',
      body: { schedule: { start_at: '2026-12-02T09:00:00Z', end_by: '2026-12-01T09:00:00Z' }, name: null, x: 1 },
    });
    expect(badPatch.status).toBe(400);
    expect(fields(badPatch)).toEqual(['name']);
    expect(
      fields(
        await call(`/v1/campaigns/${created.id}`, {
          method: 'PATCH',
          body: { schedule: { start_at: '2026-12-02T09:00:00Z', end_by: '2026-12-01T09:00:00Z' }, x: 1 },
        }),
      ),
    ).toEqual(['schedule.end_by', 'x']);

    expect((await call(`/v1/campaigns/${created.id}`, { token: g.otherToken })).status).toBe(403);
    expect((await call(`/v1/campaigns/${created.id}/estimate`, { token: g.otherToken, method: 'POST' })).status).toBe(
      403,
    );
    expect((await call(`/v1/campaigns/${uuidv7()}`)).status).toBe(404);
    expect((await call('/v1/campaigns/not-an-id')).status).toBe(404);
    expect((await call('/v1/campaigns', { token: 'gk_nothing' })).status).toBe(401);
    expect((await call('/v1/campaigns', { token: g.otherToken })).body.data).toEqual([]);

    expect((await call(`/v1/campaigns/${second.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await call(`/v1/campaigns/${second.id}`)).status).toBe(404);
  });

  it('names every bad field in a 400 problem and takes an audience of 10,000 contacts', async () => {
    const res = await call('/v1/campaigns', {
      body: {
        name: '',
        template: 'Sale!',
        params: ['{{contact.phone}}'],
        media_url: 'http://cdn.example.com/a.jpg',
        audience: { list: 'vip', contact_ids: ['x'] },
        channels: ['sms'],
        schedule: { start_at: 'tomorrow' },
        quiet_hours: { start: '09:00', end: '09:00' },
        rate: 0,
        budget: -1,
        colour: 'red',
      },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect(res.body.type).toBe('/problems/validation-error');
    expect(fields(res)).toEqual(
      [
        'audience',
        'audience.contact_ids[0]',
        'budget',
        'channels',
        'colour',
        'media_url',
        'name',
        'params[0]',
        'quiet_hours.end',
        'rate',
        'schedule.start_at',
        'template',
      ].sort(),
    );
    const many = Array.from({ length: 10_000 }, (_, i) => `ext:customer-number-${i}`);
    expect((await call('/v1/campaigns', { body: definition({ audience: { contact_ids: many } }) })).status).toBe(201);
    expect(
      fields(
        await call('/v1/campaigns', { body: definition({ audience: { contact_ids: [...many, 'ext:one-more'] } }) }),
      ),
    ).toEqual(['audience.contact_ids']);
    const unlinked = await call('/v1/campaigns', { token: g.unlinkedToken, body: definition() });
    expect([unlinked.status, unlinked.body.type]).toEqual([422, '/problems/account-not-linked']);
  });

  it('holds the public limits: a budget above 1,000,000,000 or a zone-less time is named; either form answers in seconds', async () => {
    const res = await call('/v1/campaigns', {
      body: definition({ budget: 1e9 + 1, schedule: { start_at: '2026-12-01T09:00:00', end_by: 'soon' } }),
    });
    expect([res.status, res.body.type]).toEqual([400, '/problems/validation-error']);
    expect(fields(res)).toEqual(['budget', 'schedule.end_by', 'schedule.start_at']);
    const atLimit = await call('/v1/campaigns', {
      body: definition({ budget: 1e9, schedule: { start_at: '2026-12-01T09:00:00+03:00', end_by: 1_796_202_000 } }),
    });
    expect([atLimit.status, atLimit.body.budget]).toEqual([201, 1e9]);
    const seconds = { start_at: 1_796_104_800, end_by: 1_796_202_000 };
    expect(atLimit.body.schedule).toEqual(seconds);
    expect((await call(`/v1/campaigns/${atLimit.body.id}`)).body.schedule).toEqual(seconds);
    const listed = (await call('/v1/campaigns?limit=1')).body.data[0];
    expect([listed.id, listed.schedule]).toEqual([atLimit.body.id, seconds]);
    const patch = { schedule: { end_by: '2026-12-02T09:00:00.123456789Z' } };
    const patched = await call(`/v1/campaigns/${atLimit.body.id}`, { method: 'PATCH', body: patch });
    expect(patched.body.schedule).toEqual({ end_by: 1_796_202_000 });
  });

  it('answers a body that is no definition with a 4xx problem, never a 500', async () => {
    const raw = async (body: string, contentType = 'application/json') => {
      const res = await fetch(`${g.platform.urls.gateway}/v1/campaigns`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${g.token}`, 'Content-Type': contentType },
        body,
      });
      return [res.status, res.headers.get('content-type')?.split(';')[0]];
    };
    expect(await raw('')).toEqual([400, 'application/problem+json']);
    expect(await raw('{"name":')).toEqual([400, 'application/problem+json']);
    expect(await raw('[1,2]')).toEqual([400, 'application/problem+json']);
    expect(await raw('null')).toEqual([400, 'application/problem+json']);
    expect(await raw('name=x', 'text/plain')).toEqual([415, 'application/problem+json']);
    expect(await raw(JSON.stringify(definition({ name: 'x'.repeat(3 * 1024 * 1024) })))).toEqual([
      413,
      'application/problem+json',
    ]);
    expect(
      fields(await call('/v1/campaigns', { body: definition({ audience: { contact_ids: [...Array(200).keys()] } }) })),
    ).toEqual(['audience.contact_ids[0]']);
    expect(fields(await call('/v1/campaigns', { body: definition({ audience: { list: [['deep']] } }) }))).toEqual([
      'audience.list',
    ]);
  });

  it('estimates without a WhatsApp app: the api is asked with none (bot templates alone)', async () => {
    const theirs = await call('/v1/campaigns', { token: g.otherToken, body: definition() });
    const res = await call(`/v1/campaigns/${theirs.body.id}/estimate`, { token: g.otherToken, method: 'POST' });
    expect(res.status).toBe(200);
    expect(g.api.state.quoteAsked.filter((q) => q.id === theirs.body.id).map((q) => q.template_app_id)).toEqual([null]);
  });

  it('resolves a list audience: routes on live connections, params from each contact, its zone or the account’s', async () => {
    const anna = await contact({ name: 'Anna', whatsapp: '79990000001', telegram: '1001', lists: ['list-a'] });
    const boris = await contact({ name: 'Boris', telegram: '1002', time_zone: 'Asia/Tokyo', lists: ['list-a'] });
    // MAX is not connected: no route.
    const vera = await contact({ name: 'Vera', max: '3003', lists: ['list-a'] });
    const nameless = await contact({ whatsapp: '79990000004', lists: ['list-a'] });
    await contact({ name: 'Other list', whatsapp: '79990000005', lists: ['list-b'] });
    const c = await create({
      audience: { list: 'list-a' },
      params: ['Hi {{contact.name}}', 'fixed'],
      channels: ['max', 'whatsapp', 'telegram'],
    });
    const launched = await call(`/v1/campaigns/${c.id}/launch`, { method: 'POST' });
    expect(launched.status).toBe(200);
    expect(launched.body).toMatchObject({ state: 'running', recipients: 4 });
    expect(loaded(c.id)).toEqual([
      {
        seq: 1,
        contact_id: anna.id,
        external_id: null,
        time_zone: 'Europe/Berlin',
        route: [
          { channel: 'whatsapp', to: '79990000001' },
          {
            channel: 'telegram',
            to: '1001',
            sender: { connection_id: expect.any(String), credential: 'sealed-telegram-token' },
          },
        ],
        params: ['Hi Anna', 'fixed'],
      },
      {
        seq: 2,
        contact_id: boris.id,
        external_id: null,
        time_zone: 'Asia/Tokyo',
        route: [{ channel: 'telegram', to: '1002', sender: expect.any(Object) }],
        params: ['Hi Boris', 'fixed'],
      },
      {
        seq: 3,
        contact_id: vera.id,
        external_id: null,
        time_zone: 'Europe/Berlin',
        route: [],
        params: [],
        skip: 'no_identity',
      },
      {
        seq: 4,
        contact_id: nameless.id,
        external_id: null,
        time_zone: 'Europe/Berlin',
        route: [],
        params: [],
        skip: 'missing_param',
      },
    ]);
    // Launched: its definition no longer changes, and it launches once.
    const patch = await call(`/v1/campaigns/${c.id}`, { method: 'PATCH', body: { name: 'Late' } });
    expect([patch.status, patch.body.type]).toEqual([409, '/problems/campaign-not-draft']);
    expect((await call(`/v1/campaigns/${c.id}/launch`, { method: 'POST' })).status).toBe(409);
    expect((await call(`/v1/campaigns/${c.id}/pause`, { method: 'POST' })).body).toMatchObject({
      state: 'paused',
      pause_reason: 'requested',
    });
    expect((await call(`/v1/campaigns/${c.id}/pause`, { method: 'POST' })).body.type).toBe('/problems/campaign-state');
    expect((await call(`/v1/campaigns/${c.id}/resume`, { method: 'POST' })).body.state).toBe('running');
    expect((await call(`/v1/campaigns/${c.id}/cancel`, { method: 'POST' })).body.state).toBe('cancelled');
  });

  it('keeps the order of contacts named by id and ext:, skips a contact named twice, and names unknown ones', async () => {
    const a = await contact({ external_id: 'crm-a', name: 'A', whatsapp: '79990000011' });
    const b = await contact({ external_id: 'crm-b', name: 'B', whatsapp: '79990000012' });
    const c = await contact({ name: 'C', telegram: '1013' });
    const campaign = await create({
      audience: { contact_ids: ['ext:crm-b', c.id.toUpperCase(), a.id, 'ext:crm-a', b.id] },
    });
    expect((await call(`/v1/campaigns/${campaign.id}/launch`, { method: 'POST' })).status).toBe(200);
    expect(loaded(campaign.id).map((r) => [r.seq, r.contact_id, r.skip ?? null])).toEqual([
      [1, b.id, null],
      [2, c.id, null],
      [3, a.id, null],
      [4, a.id, 'duplicate'],
      [5, b.id, 'duplicate'],
    ]);

    const theirs = await call('/v1/contacts', { token: g.otherToken, body: { external_id: 'theirs' } });
    const unknown = await create({
      audience: { contact_ids: [a.id, 'ext:nobody', theirs.body.id, 'ext:crm-b'] },
    });
    for (const action of ['estimate', 'launch']) {
      const res = await call(`/v1/campaigns/${unknown.id}/${action}`, { method: 'POST' });
      expect([res.status, res.body.type, res.body.unknown]).toEqual([
        422,
        '/problems/unknown-contacts',
        ['ext:nobody', theirs.body.id],
      ]);
    }
    expect((await call(`/v1/campaigns/${unknown.id}`)).body.state).toBe('draft');
  });

  it('resolves a filter: every list named and every attribute equal, a number matching a number', async () => {
    const gold = await contact({
      name: 'G',
      whatsapp: '79990000021',
      lists: ['f1', 'f2'],
      attributes: { plan: 'gold', n: 3 },
    });
    await contact({ name: 'One list', whatsapp: '79990000022', lists: ['f1'], attributes: { plan: 'gold', n: 3 } });
    await contact({
      name: 'Silver',
      whatsapp: '79990000023',
      lists: ['f1', 'f2'],
      attributes: { plan: 'silver', n: 3 },
    });
    await contact({
      name: 'Text 3',
      whatsapp: '79990000024',
      lists: ['f1', 'f2'],
      attributes: { plan: 'gold', n: '3' },
    });
    const c = await create({
      audience: { filter: { lists: ['f1', 'f2'], attributes: { plan: 'gold', n: 3 } } },
      params: ['{{contact.attributes.plan}} x{{contact.attributes.n}}'],
    });
    expect((await call(`/v1/campaigns/${c.id}/launch`, { method: 'POST' })).status).toBe(200);
    expect(loaded(c.id).map((r) => [r.contact_id, r.params])).toEqual([[gold.id, ['gold x3']]]);
  });

  it('estimates exclusions, recipients and cost per channel, what the balance covers, and the time and its limits', async () => {
    const tag = 'est';
    await contact({ name: 'W1', whatsapp: '79990000031', lists: [tag] });
    await contact({ name: 'W2 opted out on whatsapp', whatsapp: '79990000032', telegram: '1032', lists: [tag] });
    await contact({ name: 'W3 opted out everywhere', whatsapp: '79990000033', lists: [tag] });
    await contact({ name: 'No consent', telegram: '1034', lists: [tag] });
    await contact({ name: 'T5', telegram: '1035', lists: [tag] });
    await contact({ whatsapp: '79990000036', lists: [tag] });
    await contact({ name: 'Max only', max: '3037', lists: [tag] });
    g.api.state.optedOut.add('79990000032').add('79990000033');
    g.api.state.consentRequired.add('1034');
    g.api.state.quote = { ...g.api.state.quote, balance: 0.03, tier: { cap: 1, label: '1', remaining: 0 } };
    const c = await create({ audience: { list: tag }, budget: 0.02 });
    const res = await call(`/v1/campaigns/${c.id}/estimate`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      audience: 7,
      recipients: 3,
      excluded: { opted_out: 2, no_identity: 1, duplicate: 0, missing_param: 1 },
      channels: {
        whatsapp: { recipients: 1, price: 0.0125, cost: 0.0125 },
        telegram: { recipients: 2, price: 0.01, cost: 0.02 },
      },
      cost: {
        total: 0.0325,
        currency: 'USD',
        balance: 0.03,
        covered_recipients: 2,
        budget: 0.02,
        budget_covered_recipients: 1,
      },
      time: { limited_by: 'tier', seconds: 86_400 },
      warnings: [
        { code: 'tier', detail: "WhatsApp's tier (1) spreads the campaign over 2 days" },
        { code: 'balance', detail: 'the balance covers 2 of 3 recipients' },
        { code: 'budget', detail: 'the budget covers 1 of 3 recipients' },
      ],
    });
    expect(res.body.limits).toEqual(
      expect.arrayContaining([
        { limit: 'pacing', channel: 'whatsapp', per_second: 80, seconds: 0.1 },
        { limit: 'tier', channel: 'whatsapp', per_day: 1, days: 1, seconds: 86_400 },
      ]),
    );
    // Nothing was loaded or sent.
    expect(loaded(c.id)).toEqual([]);
    expect((await call(`/v1/campaigns/${c.id}`)).body.state).toBe('draft');
  });

  it('answers 503 when the api does not answer', async () => {
    const c = await create();
    await g.api.close();
    try {
      const res = await call(`/v1/campaigns/${c.id}`);
      expect([res.status, res.body.type]).toEqual([503, '/problems/service-unavailable']);
    } finally {
      g.api = await startCampaignsApi(g.platform.env);
    }
  });
});
