import { Client } from 'pg';
import { spawnTs, startTestInfra, TestInfra } from '@app/testing';

function run(
  entry: string,
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawnTs(entry, env, args);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
}

describe('pnpm db:migrate', () => {
  let infra: TestInfra;

  beforeAll(async () => {
    infra = await startTestInfra({ suite: 'migrations', nats: false });
  });

  afterAll(async () => {
    await infra?.stop();
  });

  async function tables(): Promise<string[]> {
    const c = new Client({ connectionString: infra.databaseUrl });
    await c.connect();
    const { rows } = await c.query<{ t: string }>(
      `SELECT table_schema || '.' || table_name AS t FROM information_schema.tables
       WHERE table_schema IN ('api', 'gateway', 'webhooks', 'public') ORDER BY 1`,
    );
    await c.end();
    return rows.map((r) => r.t);
  }

  it('runs from two processes at once, then again, without error, and creates each schema once', async () => {
    const env = { DATABASE_URL: infra.databaseUrl };
    const [a, b] = await Promise.all([run('scripts/db-migrate.ts', env), run('scripts/db-migrate.ts', env)]);
    expect([a.code, b.code, a.err + b.err]).toEqual([0, 0, '']);
    // Each migration was applied by one of the two (each schema's by whichever took its lock
    // first), never by both; the other found it done.
    const appliedBy = (out: string) => [...out.matchAll(/applied (.+)$/gm)].flatMap((m) => m[1].split(', '));
    const applied = [...appliedBy(a.out), ...appliedBy(b.out)];
    expect(applied.length).toBeGreaterThan(0);
    expect(new Set(applied).size).toBe(applied.length);
    const after = await tables();
    expect(after).toEqual(
      expect.arrayContaining(['api.users', 'api.api_tokens', 'api.balances', 'api.transactions', 'gateway.accounts']),
    );
    expect(after.filter((t) => t.startsWith('public.'))).toEqual([]);

    const again = await run('scripts/db-migrate.ts', env);
    expect(again.code).toBe(0);
    expect(again.out).not.toContain('applied');
    expect(await tables()).toEqual(after);
  });

  it('names the missing variable when DATABASE_URL is not set', async () => {
    const res = await run('scripts/db-migrate.ts', { DATABASE_URL: '' });
    expect(res.code).toBe(78);
    expect(res.err).toContain('DATABASE_URL');
  });
});
