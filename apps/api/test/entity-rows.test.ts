import { In } from 'typeorm';
import { EntityRows, migrateSchema } from '@app/database';
import { startTestInfra, TestInfra } from '@app/testing';
import { apiSchema } from '../src/database/schema';
import { MessageEntity } from '../src/messages/message.entity';
import { AppEntity } from '../src/wa-apps/app.entity';
import { ApiFactory } from '../../../test/support/factories';

/**
 * EntityRows reads the hot paths' rows (an app per send, the messages of a group of status events)
 * without TypeORM's query builder: what it gives back must be what TypeORM's own read gives, column
 * for column (numerics through their transformer, nulls, dates, booleans).
 */
describe('EntityRows', () => {
  let infra: TestInfra;
  let factory: ApiFactory;

  beforeAll(async () => {
    infra = await startTestInfra({ suite: 'entity-rows', nats: false });
    await migrateSchema(infra.databaseUrl, apiSchema);
    factory = await ApiFactory.connect(infra.databaseUrl);
  });

  afterAll(async () => {
    await factory?.close();
    await infra?.stop();
  });

  it('reads apps as TypeORM does, and leaves out ids that name none', async () => {
    const user = await factory.user();
    const active = await factory.activeApp(user.userId, { message_limit: 'TIER_2K', is_mm_lite_supported: true });
    const bare = await factory.app(user.userId, 'no number yet');
    await factory.dataSource
      .getRepository(AppEntity)
      .update(bare.id, { restrictedUntil: new Date('2026-12-01T10:00:00.123Z'), messageCap: 250, restricted: true });
    const ids = [active.id, bare.id, 2_000_000_000];
    const expected = await factory.dataSource.getRepository(AppEntity).findBy({ id: In(ids) });
    const read = await new EntityRows(factory.dataSource, AppEntity).byIds(ids);
    expect(expected).toHaveLength(2);
    const byId = (list: AppEntity[]) => [...list].sort((a, b) => a.id - b.id);
    expect(byId(read)).toEqual(byId(expected));
    expect(read.every((a) => a instanceof AppEntity)).toBe(true);
    expect(read.find((a) => a.id === bare.id)).toMatchObject({ phone: null, messageCap: 250, restricted: true });
    expect(read.find((a) => a.id === bare.id)!.restrictedUntil).toEqual(new Date('2026-12-01T10:00:00.123Z'));
  });

  it('reads messages as TypeORM does: prices as numbers, nulls as nulls, timestamps as dates', async () => {
    const user = await factory.user();
    const app = await factory.activeApp(user.userId);
    const repo = factory.dataSource.getRepository(MessageEntity);
    const base = {
      userId: user.userId,
      appId: app.id,
      accountId: null,
      channel: 'whatsapp',
      recipient: '79990001122',
      kind: 'TEMPLATE',
      category: 'UTILITY',
      priority: 'service',
      templateId: null,
      currency: 'USD',
      idempotencyKey: null,
      requestHash: null,
      campaignId: null,
    } as const;
    await repo.insert([
      {
        ...base,
        id: 'rows-1',
        status: 'QUEUED',
        price: 0.0123,
        providerMessageId: null,
        charged: null,
        billedCategory: null,
        pricingType: null,
        failureCode: null,
        failureReason: null,
      },
      {
        ...base,
        id: 'rows-2',
        status: 'DELIVERED',
        price: 1.5,
        providerMessageId: 'wamid.X',
        charged: 0.75,
        billedCategory: 'MARKETING',
        pricingType: 'regular',
        failureCode: null,
        failureReason: null,
        idempotencyKey: 'k-2',
        requestHash: 'a'.repeat(64),
      },
      {
        ...base,
        id: 'rows-3',
        status: 'FAILED',
        price: 0,
        providerMessageId: null,
        charged: null,
        billedCategory: null,
        pricingType: null,
        failureCode: '131050',
        failureReason: 'stopped',
      },
    ] as unknown as MessageEntity[]);
    const ids = ['rows-1', 'rows-2', 'rows-3', 'rows-missing'];
    const expected = await repo.findBy({ id: In(ids) });
    const read = await new EntityRows(factory.dataSource, MessageEntity).byIds(ids);
    const byId = (list: MessageEntity[]) => [...list].sort((a, b) => a.id.localeCompare(b.id));
    expect(byId(read)).toEqual(byId(expected));
    expect(byId(read).map((m) => [m.price, m.charged])).toEqual([
      [0.0123, null],
      [1.5, 0.75],
      [0, null],
    ]);
    expect(read[0].createdAt).toBeInstanceOf(Date);
    // Inside a transaction, through its manager.
    await factory.dataSource.transaction(async (em) => {
      expect((await new EntityRows(factory.dataSource, MessageEntity).byIds(['rows-2'], em))[0]).toMatchObject({
        status: 'DELIVERED',
      });
    });
    expect(await new EntityRows(factory.dataSource, MessageEntity).byIds([])).toEqual([]);
  });
});
