import { migrateSchema } from '@app/database';
import { spawnTs, startTestInfra, TestInfra } from '@app/testing';
import { Client } from 'pg';
import { ALL_SCHEMAS } from '../../scripts/schemas';

describe('pnpm cli', () => {
  let infra: TestInfra;
  let env: Record<string, string>;

  beforeAll(async () => {
    infra = await startTestInfra({ suite: 'cli', nats: false });
    for (const def of ALL_SCHEMAS) await migrateSchema(infra.databaseUrl, def);
    env = { DATABASE_URL: infra.databaseUrl };
  });

  afterAll(async () => {
    await infra?.stop();
  });

  function cli(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
    const child = spawnTs('scripts/cli.ts', env, args);
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
  }

  async function query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const c = new Client({ connectionString: infra.databaseUrl });
    await c.connect();
    const { rows } = await c.query(sql, params);
    await c.end();
    return rows as T[];
  }

  it('creates a system user with a token shown once and stored only as its SHA-256', async () => {
    const res = await cli('users:create', '--name', 'acme', '--kind', 'system', '--json');
    expect(res.code).toBe(0);
    const created = JSON.parse(res.out) as { user_id: string; token: string; kind: string };
    expect(created.kind).toBe('system');
    expect(created.token).toMatch(/^sk_[A-Za-z0-9_-]{40,}$/);
    const stored = await query<{ token_hash: string }>('SELECT token_hash FROM api.api_tokens WHERE user_id = $1', [
      created.user_id,
    ]);
    expect(stored).toHaveLength(1);
    expect(stored[0].token_hash).not.toContain(created.token);
    const { createHash } = await import('node:crypto');
    expect(stored[0].token_hash).toBe(createHash('sha256').update(created.token).digest('hex'));
  });

  it('credits a balance as a positive transaction, issues and revokes tokens, creates gateway accounts', async () => {
    const user = JSON.parse((await cli('users:create', '--name', 'shop', '--kind', 'user', '--json')).out) as {
      user_id: string;
    };
    const credit = await cli('balance:credit', '--user', user.user_id, '--amount', '100', '--json');
    expect(credit.code).toBe(0);
    expect(JSON.parse(credit.out)).toMatchObject({ amount: 100, balance: 100, currency: 'USD' });
    const second = JSON.parse((await cli('balance:credit', '--user', user.user_id, '--amount', '0.25', '--json')).out);
    expect(second.balance).toBe(100.25);
    const tx = await query<{ amount: string; status: string }>(
      'SELECT amount, status FROM api.transactions WHERE user_id = $1 ORDER BY created_at',
      [user.user_id],
    );
    expect(tx.map((t) => [Number(t.amount), t.status])).toEqual([
      [100, 'CREDITED'],
      [0.25, 'CREDITED'],
    ]);

    const token = JSON.parse((await cli('tokens:create', '--user', user.user_id, '--json')).out) as {
      token_id: string;
      token: string;
    };
    expect(token.token).toMatch(/^uk_/);
    const revoke = await cli('tokens:revoke', '--token-id', token.token_id, '--json');
    expect(JSON.parse(revoke.out)).toMatchObject({ revoked: true, token_id: token.token_id });
    const twice = await cli('tokens:revoke', '--token-id', token.token_id, '--json');
    expect(twice.code).not.toBe(0);
    expect(twice.err).toContain('no such live token');

    const account = await cli('accounts:create', '--name', 'course shop', '--user', user.user_id, '--json');
    expect(account.code).toBe(0);
    expect(JSON.parse(account.out)).toMatchObject({
      name: 'course shop',
      user_id: user.user_id,
      token: expect.stringMatching(/^gk_/),
    });
    const accountId = JSON.parse(account.out).account_id as string;
    const another = await cli('accounts:tokens:create', '--account', accountId, '--json');
    expect(another.code).toBe(0);
    const created = JSON.parse(another.out) as { token_id: string; token: string };
    expect(created).toMatchObject({ account_id: accountId, token: expect.stringMatching(/^gk_/) });
    const revoked = await cli('accounts:tokens:revoke', '--token-id', created.token_id, '--json');
    expect(JSON.parse(revoked.out)).toMatchObject({ revoked: true, token_id: created.token_id });
    const again = await cli('accounts:tokens:revoke', '--token-id', created.token_id, '--json');
    expect(again.code).not.toBe(0);
    expect(again.err).toContain('no such live token');
    const unknown = await cli('accounts:tokens:create', '--account', '01a1fd4e-8cd7-7279-b07f-08b7d79ba34e');
    expect(unknown.code).not.toBe(0);
    expect(unknown.err).toContain('no account');

    // The region national phone numbers of its contacts and sends are read in.
    const region = await cli('accounts:settings', '--account', accountId, '--region', 'us', '--json');
    expect(JSON.parse(region.out)).toMatchObject({ account_id: accountId, time_zone: 'UTC', default_region: 'US' });
    const zone = await cli('accounts:settings', '--account', accountId, '--time-zone', 'Europe/Moscow', '--json');
    expect(JSON.parse(zone.out)).toMatchObject({ time_zone: 'Europe/Moscow', default_region: 'US' });
    const cleared = await cli('accounts:settings', '--account', accountId, '--region', 'none', '--json');
    expect(JSON.parse(cleared.out)).toMatchObject({ default_region: null });
    const bad = await cli('accounts:settings', '--account', accountId, '--region', 'XX');
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('--region must be a region code');
  });

  it.each([
    [['balance:credit', '--user', 'not-a-uuid', '--amount', '5'], '--user must be a UUID'],
    [
      ['balance:credit', '--user', '01a1fd4e-8cd7-7279-b07f-08b7d79ba34e', '--amount=-5'],
      '--amount must be a positive amount',
    ],
    [['balance:credit', '--user', '01a1fd4e-8cd7-7279-b07f-08b7d79ba34e', '--amount', '5'], 'no user'],
    [['users:create', '--name', 'x', '--kind', 'admin'], '--kind must be system or user'],
    [['users:create'], "required option '--name <name>'"],
    [['no-such-command'], "unknown command 'no-such-command'"],
  ])('refuses %j with a clear message and a non-zero exit', async (args, message) => {
    const res = await cli(...args);
    expect(res.code).not.toBe(0);
    expect(res.err).toContain(message);
    expect(res.err).not.toMatch(/\n\s+at /);
  });
});
