import { CONSENT_RPC } from '@app/contracts';
import { createDataSource } from '@app/database';
import { RpcClient } from '@app/messaging';
import { DataSource } from 'typeorm';
import { GatewayCall, gatewayClient } from '../../../test/support/campaigns';
import { ApiFactory } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { ContactAddresses1764500000000 } from '../src/database/migrations/1764500000000-ContactAddresses';
import { gatewaySchema } from '../src/database/schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Contacts stored with an identity column per channel become address rows: every identity is a
 * row, the contact reads as it did, and the opt-outs recorded while they were columns keep refusing
 * the sends and campaign recipients they refused (and only those).
 */
describe('contact addresses migration', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let db: DataSource;
  let call: GatewayCall;
  let accountId: string;
  let userId: string;
  let rpc: RpcClient;
  const migration = new ContactAddresses1764500000000();

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
    const user = await factory.user('system', { balance: 10 });
    userId = user.userId;
    const app = await factory.activeApp(userId, { message_limit: 'TIER_UNLIMITED' });
    await factory.sendableTemplate(app.id, { name: 'promo', category: 'MARKETING', body: 'Hello {{1}}' });
    rpc = new RpcClient({
      url: platform.infra.natsUrl,
      prefix: platform.infra.prefix,
      name: 'addresses-migration-test',
    });
    db = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await db.initialize();
    const account = await new AccountsRepository(db).createAccount('migrated', user.userId);
    call = gatewayClient(platform.urls.gateway, account.token);
    [{ id: accountId }] = await db.query(`SELECT id FROM accounts ORDER BY created_at DESC LIMIT 1`);
    expect((await call('POST', '/v1/connections', { channel: 'whatsapp', app_id: app.id })).status).toBe(201);
    // The schema as it was before addresses were rows.
    await migrate('down');
  });

  afterAll(async () => {
    await rpc?.onApplicationShutdown();
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
    const anna = await call('GET', '/v1/contacts/ext:old-1');
    expect(anna.body).toMatchObject({
      external_id: 'old-1',
      name: 'Anna',
      identities: { whatsapp: '79990005501', telegram: '5501', max: '5501' },
    });
    expect((await call('GET', '/v1/contacts/ext:old-3')).body.identities).toEqual({
      whatsapp: null,
      telegram: '5503',
      max: null,
    });
    // A taken address is still refused as its column's unique index refused it.
    expect((await call('POST', '/v1/contacts', { identities: { whatsapp: '+79990005502' } })).status).toBe(409);
  });

  it('keeps applying opt-outs recorded before the migration: the send and the campaign estimate refuse that contact only', async () => {
    await migrate('down');
    await db.query(
      `INSERT INTO contacts (id, account_id, external_id, name, whatsapp, telegram) VALUES
         (gen_random_uuid(), $1, 'old-4', 'Dana', '79990005504', '5504'),
         (gen_random_uuid(), $1, 'old-5', 'Egor', '79990005505', NULL)`,
      [accountId],
    );
    // Recorded through the api's consent as the gateway recorded a contact's opt-out while its phone was a column.
    const recorded = await rpc.call(CONSENT_RPC.apply, {
      user_id: userId,
      changes: [
        { channel: 'whatsapp', address: '79990005504', purpose: 'marketing', state: 'opted_out', source: 'api' },
      ],
    });
    expect(recorded.outcomes).toEqual([{ changed: true }]);
    await migrate('up');

    const send = (contact: string) =>
      call('POST', '/v1/messages', { contact, channels: ['whatsapp'], template: 'promo', params: ['Ann'] });
    expect(await send('ext:old-4')).toMatchObject({
      status: 422,
      body: { type: '/problems/recipient-opted-out', channel: 'whatsapp', purpose: 'marketing' },
    });
    expect((await send('ext:old-5')).status).toBe(202);

    const campaign = await call('POST', '/v1/campaigns', {
      name: 'Migrated audience',
      template: 'promo',
      params: ['{{contact.name}}'],
      audience: { contact_ids: ['ext:old-4', 'ext:old-5'] },
      channels: ['whatsapp'],
    });
    expect(campaign.status).toBe(201);
    const estimate = await call('POST', `/v1/campaigns/${campaign.body.id}/estimate`);
    expect(estimate.status).toBe(200);
    expect(estimate.body).toMatchObject({
      audience: 2,
      recipients: 1,
      excluded: { opted_out: 1, no_identity: 0 },
      channels: { whatsapp: { recipients: 1 } },
    });

    // A user id added beside the phone is another address: the phone's opt-out is not its.
    const added = await call('PATCH', '/v1/contacts/ext:old-4', { identities: { 'whatsapp:user_id': 'RU.5504' } });
    expect(added.status).toBe(200);
    const consent = await call('GET', '/v1/contacts/ext:old-4/consent');
    expect(
      (consent.body.states as Json[])
        .filter((s) => s.purpose === 'marketing')
        .map((s) => [s.channel, s.address, s.kind, s.state]),
    ).toEqual(
      expect.arrayContaining([
        ['whatsapp', '79990005504', undefined, 'opted_out'],
        ['whatsapp', 'RU.5504', 'user_id', 'unknown'],
        ['telegram', '5504', undefined, 'unknown'],
      ]),
    );
  });
});
