import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { HousekeepingService } from '../src/housekeeping/housekeeping.service';
import { client } from './support/http';

/** Request bookkeeping does not grow without bound, and cleaning it changes nobody's answers. */
describe('housekeeping', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let sys: TestUser;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'housekeeping',
      services: ['api'],
      env: { RATE_LIMIT_PER_SECOND: '2', RATE_LIMIT_BURST: '5', HOUSEKEEPING_INTERVAL_MS: '0' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system');
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  const sql = (query: string, params: unknown[] = []) => factory.dataSource.query(query, params);

  it('deletes idempotency keys past their TTL and idle full buckets, keeps live ones', async () => {
    await sql(
      `INSERT INTO idempotency_keys (user_id, key, request_hash, state, created_at) VALUES
         ($1, 'old', repeat('a', 64), 'COMPLETED', now() - interval '25 hours'),
         ($1, 'fresh', repeat('b', 64), 'COMPLETED', now() - interval '1 hour')`,
      [sys.userId],
    );
    // A token that has just spent its burst, and one idle for an hour (its bucket is full again).
    const call = client(`${platform.urls.api}/api`);
    for (let i = 0; i < 5; i++) await call('GET', `/v1/users/${sys.userId}/balances`, { auth: sys.auth });
    await sql(
      `INSERT INTO rate_limits (key, tokens, allowed, refilled_at) VALUES ('idle-token', 3, true, now() - interval '1 hour')`,
    );
    const busy = (await sql(`SELECT key FROM rate_limits WHERE key <> 'idle-token'`)) as { key: string }[];
    expect(busy).toHaveLength(1);

    const swept = await platform.apps.api!.get(HousekeepingService).sweep();
    expect(swept).toEqual({ idempotencyKeys: 1, rateLimitBuckets: 1, tierRecipients: 0 });
    const keys = (await sql(`SELECT key FROM idempotency_keys ORDER BY key`)) as { key: string }[];
    expect(keys.map((k) => k.key)).toEqual(['fresh']);
    const buckets = (await sql(`SELECT key FROM rate_limits`)) as { key: string }[];
    expect(buckets.map((b) => b.key)).toEqual([busy[0].key]);
    // The spent bucket is still spent: its limit was not reset by the clean-up.
    expect((await call('GET', `/v1/users/${sys.userId}/balances`, { auth: sys.auth })).status).toBe(429);
  });

  it("deletes recipients out of the messaging tier's 24-hour window and takes them off the app's count", async () => {
    await sql(
      `INSERT INTO tier_recipients (app_id, recipient, first_sent_at, last_sent_at) VALUES
         (901, '447000000001', now() - interval '30 hours', now() - interval '25 hours'),
         (901, '447000000002', now() - interval '2 hours', now() - interval '1 hour'),
         (902, '447000000003', now() - interval '26 hours', now() - interval '26 hours')`,
    );
    await sql(`INSERT INTO tier_usage (app_id, recipients) VALUES (901, 2), (902, 1)`);
    const swept = await platform.apps.api!.get(HousekeepingService).sweep();
    expect(swept.tierRecipients).toBe(2);
    expect(await sql(`SELECT app_id, recipient FROM tier_recipients`)).toEqual([
      { app_id: 901, recipient: '447000000002' },
    ]);
    expect(await sql(`SELECT app_id, recipients FROM tier_usage ORDER BY app_id`)).toEqual([
      { app_id: 901, recipients: 1 },
      { app_id: 902, recipients: 0 },
    ]);
  });
});
