import { createDataSource } from '@app/database';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { gatewaySchema } from '../src/database/schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Contacts of a gateway account through the gateway and the api: every field checked and named
 * when bad, ids and ext:<external id> in paths, other accounts' contacts refused, paging and
 * filters, consent set and read per contact, and erasure that keeps an opt-out.
 */
describe('gateway contacts', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let user: TestUser;
  let token: string;
  let otherToken: string;

  const call = async (path: string, init: { method?: string; token?: string; body?: unknown } = {}) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        Authorization: `Bearer ${init.token ?? token}`,
        ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Json };
  };
  const fields = (res: { body: Json }) => ((res.body?.errors ?? []) as { field: string }[]).map((e) => e.field).sort();

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'gateway-contacts',
      services: ['api', 'gateway'],
      env: { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    user = await factory.user('system');
    const other = await factory.user('system');
    const gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await gatewayDb.initialize();
    const accounts = new AccountsRepository(gatewayDb);
    token = (await accounts.createAccount('contacts', user.userId)).token;
    otherToken = (await accounts.createAccount('other', other.userId)).token;
    await gatewayDb.destroy();
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  it('creates a contact with every field and reads it by id and by ext:<external id>', async () => {
    const created = await call('/v1/contacts', {
      body: {
        external_id: 'crm-1',
        name: 'Anna',
        identities: { whatsapp: '79990001122', telegram: '424242', max: '55' },
        language: 'ru',
        attributes: { plan: 'gold', visits: 3 },
        lists: ['vip', 'newsletter'],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      external_id: 'crm-1',
      name: 'Anna',
      identities: { whatsapp: '79990001122', telegram: '424242', max: '55' },
      time_zone: 'UTC',
      language: 'ru',
      attributes: { plan: 'gold', visits: 3 },
      lists: ['vip', 'newsletter'],
    });
    expect((await call(`/v1/contacts/${created.body.id}`)).body).toEqual(created.body);
    expect((await call('/v1/contacts/ext:crm-1')).body).toEqual(created.body);
    expect((await call('/v1/contacts/ext:nobody')).status).toBe(404);
    expect((await call('/v1/contacts/0192f0c4-a0f8-7cc3-a1f0-e4d2b3c4d5e6')).status).toBe(404);
  });

  it('names every bad field in a 400 problem, and refuses unknown fields', async () => {
    const res = await call('/v1/contacts', {
      body: {
        external_id: '',
        identities: { whatsapp: '+7999', telegram: 'abc', sms: '1' },
        time_zone: 'Mars/Olympus',
        language: 'Russian',
        attributes: { 'bad key': 1, nested: { a: 1 } },
        lists: 'vip',
        email: 'a@b.c',
      },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect(fields(res)).toEqual(
      [
        'attributes.bad key',
        'attributes.nested',
        'email',
        'external_id',
        'identities.sms',
        'identities.telegram',
        'identities.whatsapp',
        'language',
        'lists',
        'time_zone',
      ].sort(),
    );
    expect(
      fields(
        await call('/v1/contacts', {
          body: { attributes: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
        }),
      ),
    ).toEqual(['attributes']);
  });

  it("refuses another account's contact with 403 and a taken external id or identity with 409", async () => {
    const mine = await call('/v1/contacts', { body: { external_id: 'crm-2', identities: { telegram: '777' } } });
    expect((await call(`/v1/contacts/${mine.body.id}`, { token: otherToken })).status).toBe(403);
    expect((await call(`/v1/contacts/${mine.body.id}`, { token: otherToken, method: 'DELETE' })).status).toBe(403);
    expect((await call('/v1/contacts/ext:crm-2', { token: otherToken })).status).toBe(404);
    expect((await call('/v1/contacts', { body: { external_id: 'crm-2' } })).status).toBe(409);
    expect((await call('/v1/contacts', { body: { identities: { telegram: '777' } } })).status).toBe(409);
    // Another account may use the same external id.
    expect((await call('/v1/contacts', { token: otherToken, body: { external_id: 'crm-2' } })).status).toBe(201);
  });

  it('updates some fields, clears one with null, and keeps the rest', async () => {
    const c = await call('/v1/contacts', {
      body: { external_id: 'crm-3', name: 'Boris', identities: { whatsapp: '79990003333' }, lists: ['a'] },
    });
    const patched = await call(`/v1/contacts/ext:crm-3`, {
      method: 'PATCH',
      body: { name: null, identities: { telegram: '333' }, time_zone: 'Europe/Moscow' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id: c.body.id,
      name: null,
      identities: { whatsapp: '79990003333', telegram: '333', max: null },
      time_zone: 'Europe/Moscow',
      lists: ['a'],
    });
    expect(fields(await call(`/v1/contacts/${c.body.id}`, { method: 'PATCH', body: { lists: [1] } }))).toEqual([
      'lists',
    ]);
  });

  it('pages the contacts and filters them by list, text and channel', async () => {
    for (let i = 0; i < 5; i++) {
      await call('/v1/contacts', {
        body: {
          external_id: `page-${i}`,
          name: `Pager ${i}`,
          lists: i % 2 ? ['odd'] : [],
          identities: i < 2 ? { max: `90${i}` } : {},
        },
      });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await call(`/v1/contacts?q=pager&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...(res.body.data as Json[]).map((c) => c.external_id as string));
      cursor = res.body.next_cursor as string | null;
    } while (cursor);
    expect(seen).toEqual(['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
    const odd = await call('/v1/contacts?list=odd&q=PAGER');
    expect((odd.body.data as Json[]).map((c) => c.external_id)).toEqual(['page-1', 'page-3']);
    const onMax = await call('/v1/contacts?channel=max&q=page');
    expect((onMax.body.data as Json[]).map((c) => c.external_id)).toEqual(['page-0', 'page-1']);
    expect((await call('/v1/contacts?channel=sms')).status).toBe(400);
    expect((await call('/v1/contacts?limit=0')).status).toBe(400);
  });

  it('sets and reads consent per contact, on every channel of it or on one', async () => {
    const c = await call('/v1/contacts', {
      body: { external_id: 'crm-4', identities: { whatsapp: '79990004444', telegram: '4444' } },
    });
    const out = await call('/v1/contacts/ext:crm-4/consent', {
      method: 'PUT',
      body: { purpose: 'marketing', state: 'opted_out', evidence: 'asked by phone' },
    });
    expect(out.status).toBe(200);
    expect(out.body.states).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          channel: 'whatsapp',
          address: '79990004444',
          purpose: 'marketing',
          state: 'opted_out',
          source: 'api',
        }),
        expect.objectContaining({ channel: 'telegram', address: '4444', purpose: 'marketing', state: 'opted_out' }),
        expect.objectContaining({ channel: 'telegram', purpose: 'all', state: 'unknown', since: null }),
      ]),
    );
    expect(out.body.history).toHaveLength(2);
    expect(out.body.history[0]).toMatchObject({ state: 'opted_out', source: 'api', evidence: 'asked by phone' });

    // The business set it, so the business may lift it; one channel only.
    const back = await call(`/v1/contacts/${c.body.id}/consent`, {
      method: 'PUT',
      body: { channel: 'telegram', purpose: 'marketing', state: 'opted_in' },
    });
    expect(back.status).toBe(200);
    const tg = (back.body.states as Json[]).find((s) => s.channel === 'telegram' && s.purpose === 'marketing');
    expect(tg).toMatchObject({ state: 'opted_in' });
    expect(
      fields(await call(`/v1/contacts/${c.body.id}/consent`, { method: 'PUT', body: { purpose: 'x', state: 'on' } })),
    ).toEqual(['purpose', 'state']);
    const none = await call('/v1/contacts', { body: { name: 'No identity' } });
    expect(
      (
        await call(`/v1/contacts/${none.body.id}/consent`, {
          method: 'PUT',
          body: { purpose: 'all', state: 'opted_out' },
        })
      ).status,
    ).toBe(422);
  });

  it("erases a contact's personal data and keeps its opt-out for the address", async () => {
    const c = await call('/v1/contacts', {
      body: { external_id: 'crm-5', name: 'Vera', identities: { telegram: '5005' } },
    });
    await call(`/v1/contacts/${c.body.id}/consent`, { method: 'PUT', body: { purpose: 'all', state: 'opted_out' } });
    expect((await call(`/v1/contacts/${c.body.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await call(`/v1/contacts/${c.body.id}`)).status).toBe(404);
    const rows = await factory.dataSource.query(`SELECT count(*)::int AS n FROM gateway.contacts WHERE name = 'Vera'`);
    expect(rows[0].n).toBe(0);
    // The opt-out is kept under a keyed hash of the address (the api never stored the address).
    const kept = await factory.dataSource.query(
      `SELECT address_key FROM api.consents WHERE user_id = $1 AND channel = 'telegram'`,
      [user.userId],
    );
    expect(kept.length).toBeGreaterThan(0);
    expect(
      kept.every((r: { address_key: string }) => /^[0-9a-f]{64}$/.test(r.address_key) && r.address_key !== '5005'),
    ).toBe(true);
    const again = await call('/v1/contacts', { body: { external_id: 'crm-5b', identities: { telegram: '5005' } } });
    const consent = await call(`/v1/contacts/${again.body.id}/consent`);
    expect(consent.body.states).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ channel: 'telegram', purpose: 'all', state: 'opted_out', source: 'api' }),
      ]),
    );
  });

  it('keeps the consent settings of the business', async () => {
    const before = await call('/v1/consent/settings');
    expect(before.body).toEqual({
      marketing_requires_opt_in: false,
      opt_out_keywords: ['STOP', 'UNSUBSCRIBE', 'END', 'QUIT', 'CANCEL', 'OPTOUT', 'СТОП', 'ОТПИСАТЬСЯ'],
      opt_in_keywords: ['START', 'SUBSCRIBE', 'СТАРТ', 'ПОДПИСАТЬСЯ'],
    });
    const changed = await call('/v1/consent/settings', {
      method: 'PUT',
      body: { marketing_requires_opt_in: true, opt_out_keywords: ['stop', 'Хватит!'] },
    });
    expect(changed.body).toEqual({
      ...before.body,
      marketing_requires_opt_in: true,
      opt_out_keywords: ['STOP', 'ХВАТИТ'],
    });
    expect(fields(await call('/v1/consent/settings', { method: 'PUT', body: { opt_in_keywords: ['...'] } }))).toEqual([
      'opt_in_keywords',
    ]);
    expect((await call('/v1/consent/settings', { token: otherToken })).body.marketing_requires_opt_in).toBe(false);
  });

  it('knows one person on WhatsApp by a phone, a business-scoped user id and a username', async () => {
    const created = await call('/v1/contacts', {
      body: {
        external_id: 'addr-1',
        identities: { whatsapp: '+7 999 000-44-01', 'whatsapp:username': '@Anna.P' },
        addresses: [{ channel: 'whatsapp', kind: 'user_id', value: 'RU.1502576394655843' }],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.identities).toEqual({ whatsapp: '79990004401', telegram: null, max: null });
    expect(created.body.addresses).toEqual([
      { channel: 'whatsapp', kind: 'phone', value: '79990004401' },
      { channel: 'whatsapp', kind: 'user_id', value: 'RU.1502576394655843' },
      { channel: 'whatsapp', kind: 'username', value: 'anna.p' },
    ]);
    // A patch of the old field changes the phone only; the other kinds stay.
    const patched = await call(`/v1/contacts/${created.body.id}`, {
      method: 'PATCH',
      body: { identities: { whatsapp: '79990004402' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.addresses.map((a: Json) => a.value)).toEqual(['79990004402', 'RU.1502576394655843', 'anna.p']);
    const bad = await call('/v1/contacts', {
      body: {
        addresses: [
          { channel: 'whatsapp', kind: 'user_id', value: '79990004401' },
          { channel: 'fax', kind: 'x', value: '1' },
        ],
      },
    });
    expect(bad.status).toBe(400);
    expect(fields(bad)).toEqual(['addresses[0].value', 'addresses[1].channel']);
  });

  it('refuses an address another contact has with 409, and a contact past 20 addresses with 422', async () => {
    const taken = await call('/v1/contacts', {
      body: { addresses: [{ channel: 'whatsapp', kind: 'user_id', value: 'RU.1502576394655843' }] },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.detail).toBe('Another contact of the account has this whatsapp:user_id.');
    const phone = await call('/v1/contacts', { body: { identities: { whatsapp: '79990004402' } } });
    expect(phone.status).toBe(409);
    expect(phone.body.detail).toBe('Another contact of the account has this whatsapp.');
    const twenty = Array.from({ length: 20 }, (_, i) => ({ channel: 'telegram', kind: 'chat_id', value: `9100${i}` }));
    const full = await call('/v1/contacts', { body: { external_id: 'addr-full', addresses: twenty } });
    expect(full.status).toBe(201);
    expect(full.body.addresses).toHaveLength(20);
    const more = await call('/v1/contacts/ext:addr-full', { method: 'PATCH', body: { identities: { max: '5' } } });
    expect(more.status).toBe(422);
    expect(more.body.type).toMatch(/too-many-addresses/);
    expect((await call('/v1/contacts/ext:addr-full')).body.identities.max).toBeNull();
  });
});
