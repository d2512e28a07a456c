import { createDataSource } from '@app/database';
import { DataSource } from 'typeorm';
import { ApiFactory } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { ContactAddresses1764500000000 } from '../src/database/migrations/1764500000000-ContactAddresses';
import { gatewaySchema } from '../src/database/schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Contacts stored with an identity column per channel become address rows: every identity is a
 * row, the contact reads as it did, and the opt-outs recorded for its addresses keep applying.
 */
describe('contact addresses migration', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let db: DataSource;
  let token: string;
  let accountId: string;
  const migration = new ContactAddresses1764500000000();

  const call = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        Authorization: `Bearer ${token}`,
        ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
  };
  const migrate = async (step: 'up' | 'down') => {
    const runner = db.createQueryRunner();
    try {
      await migration[step](runner);
    } finally {
      await runner.release();
    }
  };

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'contact-addresses-migration',
      services: ['api', 'gateway'],
      env: { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    const user = await factory.user('system');
    db = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await db.initialize();
    const account = await new AccountsRepository(db).createAccount('migrated', user.userId);
    token = account.token;
    [{ id: accountId }] = await db.query(`SELECT id FROM accounts ORDER BY created_at DESC LIMIT 1`);
    // The schema as it was before addresses were rows.
    await migrate('down');
  });

  afterAll(async () => {
    await db?.destroy();
    await factory?.close();
    await platform?.stop();
  });

  it('makes every identity column a row, keeps the contact as it read, and keeps its opt-outs', async () => {
    await db.query(
      `INSERT INTO contacts (id, account_id, external_id, name, whatsapp, telegram, max) VALUES
         (gen_random_uuid(), $1, 'old-1', 'Anna', '79990005501', '5501', '5501'),
         (gen_random_uuid(), $1, 'old-2', 'Boris', '79990005502', NULL, NULL),
         (gen_random_uuid(), $1, 'old-3', NULL, NULL, '5503', NULL)`,
      [accountId],
    );
    await migrate('up');
    const rows = await db.query(
      `SELECT c.external_id, a.channel, a.kind, a.value FROM contact_addresses a JOIN contacts c ON c.id = a.contact_id
        WHERE c.account_id = $1 ORDER BY c.external_id, a.channel`,
      [accountId],
    );
    expect(rows).toEqual([
      { external_id: 'old-1', channel: 'max', kind: 'user_id', value: '5501' },
      { external_id: 'old-1', channel: 'telegram', kind: 'chat_id', value: '5501' },
      { external_id: 'old-1', channel: 'whatsapp', kind: 'phone', value: '79990005501' },
      { external_id: 'old-2', channel: 'whatsapp', kind: 'phone', value: '79990005502' },
      { external_id: 'old-3', channel: 'telegram', kind: 'chat_id', value: '5503' },
    ]);
    const anna = await call('/v1/contacts/ext:old-1');
    expect(anna.body).toMatchObject({
      external_id: 'old-1',
      name: 'Anna',
      identities: { whatsapp: '79990005501', telegram: '5501', max: '5501' },
    });
    expect((await call('/v1/contacts/ext:old-3')).body.identities).toEqual({
      whatsapp: null,
      telegram: '5503',
      max: null,
    });
    // A taken address is still refused as its column's unique index refused it.
    expect((await call('/v1/contacts', { body: { identities: { whatsapp: '+79990005502' } } })).status).toBe(409);
  });

  it('keeps applying opt-outs recorded for the identity columns after the migration', async () => {
    await migrate('down');
    await db.query(
      `INSERT INTO contacts (id, account_id, external_id, whatsapp, telegram) VALUES
         (gen_random_uuid(), $1, 'old-4', '79990005504', '5504')`,
      [accountId],
    );
    // The opt-out goes through the api's consent (over NATS) under the key the phone column always had.
    await migrate('up');
    const out = await call('/v1/contacts/ext:old-4/consent', {
      method: 'PUT',
      body: { channel: 'whatsapp', purpose: 'marketing', state: 'opted_out' },
    });
    expect(out.status).toBe(200);
    await migrate('down');
    expect((await db.query(`SELECT whatsapp, telegram FROM contacts WHERE external_id = 'old-4'`))[0]).toEqual({
      whatsapp: '79990005504',
      telegram: '5504',
    });
    await migrate('up');
    const consent = await call('/v1/contacts/ext:old-4/consent');
    const state = (channel: string) =>
      (consent.body.states as Json[]).find((s) => s.channel === channel && s.purpose === 'marketing')?.state;
    expect(state('whatsapp')).toBe('opted_out');
    expect(state('telegram')).toBe('unknown');
    // A user id added beside the phone is another address: the phone's opt-out is not its.
    const added = await call('/v1/contacts/ext:old-4', {
      method: 'PATCH',
      body: { identities: { 'whatsapp:user_id': 'RU.5504' } },
    });
    expect(added.status).toBe(200);
    const after = await call('/v1/contacts/ext:old-4/consent');
    expect(
      (after.body.states as Json[]).filter((s) => s.purpose === 'marketing').map((s) => [s.address, s.kind, s.state]),
    ).toEqual(
      expect.arrayContaining([
        ['79990005504', undefined, 'opted_out'],
        ['RU.5504', 'user_id', 'unknown'],
      ]),
    );
  });
});
