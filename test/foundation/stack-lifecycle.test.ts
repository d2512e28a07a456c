// `pnpm stack` as a new user runs it on a machine with nothing set: its own embedded Postgres and
// nats-server under its data directory, started in the background, used by the operator CLI, then
// stopped with a signal, or killed and started again over what it left.
import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort, freePortPair, REPO_ROOT, startTestInfra, TestInfra, waitFor } from '@app/testing';
import { endLeftovers, stackBuildDir, stackProcesses, stackRecordPath } from '../../scripts/stack-state';

interface StackRun {
  child: ChildProcess;
  out: string;
  err: string;
  exited: Promise<number | null>;
}

const STARTED = 'Press Ctrl-C to stop everything.';

describe('pnpm stack in the background, on its own Postgres and nats-server', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stack-lifecycle-'));
  // As .data/ in a checkout: readable by the postgres user the embedded Postgres runs as under root.
  chmodSync(dataDir, 0o755);
  const runs: StackRun[] = [];
  let env: Record<string, string>;
  let infra: TestInfra;

  beforeAll(async () => {
    // Only for a Postgres that has no database of the stack's name (the CLI's refusal).
    infra = await startTestInfra({ suite: 'stack_lifecycle', nats: false });
    env = { STACK_DATA_DIR: dataDir };
    for (const variable of ['API_PORT', 'GATEWAY_PORT', 'QUEUE_PORT', 'WEBHOOKS_PORT', 'SANDBOX_PORT']) {
      env[variable] = String(await freePortPair(1000));
    }
    env.EMBEDDED_PG_PORT = String(await freePort());
    env.LOCAL_NATS_PORT = String(await freePort());
  });

  afterAll(async () => {
    for (const run of runs) {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    }
    // Whatever a failed test left of this data directory's stack (never another Postgres or nats-server).
    await endLeftovers(stackProcesses(dataDir));
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(stackBuildDir(dataDir), { recursive: true, force: true });
    await infra?.stop();
  });

  /** A developer's shell: none of the test run's settings, so the stack runs its own Postgres and NATS. */
  function shell(): NodeJS.ProcessEnv {
    const inherited = { ...process.env };
    for (const key of ['DATABASE_URL', 'NATS_URL', 'NATS_PREFIX', 'NODE_ENV', 'JEST_WORKER_ID']) delete inherited[key];
    return { ...inherited, ...env };
  }

  function startStack(): StackRun {
    const child = spawn(process.execPath, ['-r', './scripts/register.js', 'scripts/stack.ts'], {
      cwd: REPO_ROOT,
      env: shell(),
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, as a shell's background job.
      detached: true,
    });
    const run: StackRun = { child, out: '', err: '', exited: new Promise((r) => child.once('close', (c) => r(c))) };
    child.stdout?.on('data', (d: Buffer) => (run.out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (run.err += d.toString()));
    runs.push(run);
    return run;
  }

  async function until(run: StackRun, text: string | RegExp): Promise<void> {
    const seen = () => (typeof text === 'string' ? run.out.includes(text) : text.test(run.out));
    await waitFor(() => seen() || run.child.exitCode !== null, 240_000, `the stack to print ${String(text)}`, 200);
    if (!seen()) throw new Error(`the stack exited before printing ${String(text)}:\n${run.out}\n${run.err}`);
  }

  function cli(extra: Record<string, string>, ...args: string[]) {
    // The developer's shell, not this process's environment (spawnTs would pass DATABASE_URL).
    const real = spawn(process.execPath, ['-r', './scripts/register.js', 'scripts/cli.ts', ...args], {
      cwd: REPO_ROOT,
      env: { ...shell(), ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    real.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    real.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    return new Promise<{ code: number | null; out: string; err: string }>((r) =>
      real.once('close', (code) => r({ code, out, err })),
    );
  }

  const running = () => stackProcesses(dataDir).map((p) => p.what);

  let live: StackRun;

  it('a stack killed with SIGKILL is recognised at the next start: what it left is named as its own and stopped', async () => {
    const killed = startStack();
    await until(killed, /sandbox\s+ready/);
    process.kill(killed.child.pid!, 'SIGKILL');
    await killed.exited;
    // Its Postgres, nats-server and first service outlive it (nothing could stop them).
    expect(running()).toEqual(expect.arrayContaining(['postgres', 'nats-server', 'sandbox']));

    live = startStack();
    await until(live, STARTED);
    expect(live.out).toMatch(
      /an earlier stack of \S+ did not stop; stopping what it left running: .*postgres \(pid \d+\).*nats-server \(pid \d+\)/,
    );
    expect(live.out).toContain('the earlier stack is stopped');
    expect(live.err).not.toContain('another program');
  }, 600_000);

  it("the CLI writes to the running stack's database without DATABASE_URL, and says which", async () => {
    const demoUser = /demo system user: (\S+)/.exec(live.out)![1];
    const credit = await cli({}, 'balance:credit', '--user', demoUser, '--amount', '7', '--json');
    expect(credit).toMatchObject({ code: 0, err: '' });
    const stackDb = `postgres://postgres@127.0.0.1:${env.EMBEDDED_PG_PORT}/messaging`;
    expect(JSON.parse(credit.out)).toMatchObject({ amount: 7, database: stackDb });
    const db = new Client({
      connectionString: `postgres://postgres:postgres@127.0.0.1:${env.EMBEDDED_PG_PORT}/messaging`,
    });
    await db.connect();
    const { rows } = await db.query('SELECT amount FROM api.transactions WHERE user_id = $1 AND amount = 7', [
      demoUser,
    ]);
    await db.end();
    expect(rows).toHaveLength(1);

    const text = await cli({}, 'balance:credit', '--user', demoUser, '--amount', '1');
    expect(text.out).toContain(`database: ${stackDb} (the local stack's, pid ${live.child.pid})`);

    // A DATABASE_URL naming a server without that database: one sentence saying where the stack's is.
    const elsewhere = new URL(infra.databaseUrl);
    elsewhere.pathname = '/messaging_not_here';
    const refused = await cli(
      { DATABASE_URL: elsewhere.toString() },
      'balance:credit',
      '--user',
      demoUser,
      '--amount',
      '1',
    );
    expect(refused.code).toBe(1);
    expect(refused.err.trim()).toBe(
      `error: database "messaging_not_here" does not exist at ${elsewhere.hostname}:${elsewhere.port} (DATABASE_URL); the local stack running now (pid ${live.child.pid}) has its database at ${stackDb}: run this without DATABASE_URL to use it.`,
    );
  }, 120_000);

  it("the demo shows its number's id, prints the commands that raise its tier and credit its balance, and has a MARKETING template that STOP stops", async () => {
    const appId = /demo app (\d+): ACTIVE on sandbox number \d+ \(phone_number_id (\d+)/.exec(live.out)!;
    const token = /token \(also in .*\): (\S+)/.exec(live.out)![1];
    const apiUrl = `http://localhost:${env.API_PORT}/api/v1`;
    const api = async (path: string, body?: unknown) => {
      const res = await fetch(`${apiUrl}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect((await api(`/wa/apps/${appId[1]}`)).body).toMatchObject({
      phone_number_id: appId[2],
      message_limit: 'TIER_NOT_SET',
    });

    // The two commands, as printed.
    const printed = (command: string) => {
      const line = live.out.split('\n').find((l) => l.includes(`pnpm -s cli ${command}`))!;
      expect(line).toContain(`STACK_DATA_DIR=${dataDir} `);
      return line.slice(line.indexOf('pnpm -s cli ') + 'pnpm -s cli '.length).split(' ');
    };
    const tier = await cli({}, ...printed('sandbox:tier'), '--json');
    expect(tier).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(tier.out)).toMatchObject({ phone_number_id: appId[2], message_limit: 'TIER_10K' });
    expect((await api(`/wa/apps/${appId[1]}`)).body).toMatchObject({ message_limit: 'TIER_10K' });
    const credit = await cli({}, ...printed('balance:credit'), '--json');
    expect(JSON.parse(credit.out)).toMatchObject({ amount: 1000 });

    // The MARKETING template goes until the recipient writes STOP; the UTILITY one still goes after.
    const sends = live.out.split('\n').filter((l) => l.includes(`${apiUrl}/wa/apps/${appId[1]}/messages `));
    const body = (line: string) => JSON.parse(/-d '(.+)'$/.exec(line)![1]) as Record<string, unknown>;
    const [utility, marketing] = sends.map(body);
    expect(marketing).toMatchObject({ template: { name: 'spring_sale' } });
    expect((await api(`/wa/apps/${appId[1]}/messages`, marketing)).status).toBe(201);
    const stop = live.out.split('\n').find((l) => l.includes('/_sandbox/whatsapp/inbound'))!;
    const inbound = await fetch(`http://localhost:${env.SANDBOX_PORT}/_sandbox/whatsapp/inbound`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body(stop)),
    });
    expect(inbound.status).toBe(201);
    const refused = await waitFor(
      async () => {
        const res = await api(`/wa/apps/${appId[1]}/messages`, marketing);
        return res.status === 422 && res.body;
      },
      30_000,
      'the STOP to reach consent',
      300,
    );
    expect(refused).toMatchObject({ type: '/problems/recipient-opted-out', purpose: 'marketing' });
    expect((await api(`/wa/apps/${appId[1]}/messages`, utility)).status).toBe(201);
  }, 120_000);

  it('SIGTERM to its pid stops every service, nats-server and Postgres, and says so', async () => {
    process.kill(live.child.pid!, 'SIGTERM');
    expect(await live.exited).toBe(0);
    expect(live.out).toContain('stopped: every service, nats-server and Postgres of the stack have exited');
    expect(running()).toEqual([]);
    expect(existsSync(stackRecordPath(dataDir))).toBe(false);
    // The CLI no longer finds a stack, and says so instead of trying another database.
    const after = await cli({}, 'balance:credit', '--user', '01a1fd4e-8cd7-7279-b07f-08b7d79ba34e', '--amount', '1');
    expect(after.code).toBe(2);
    expect(after.err).toContain('no database: DATABASE_URL is not set and no local stack is running');
  }, 120_000);

  it('SIGINT twice to its process group while it starts stops everything it started', async () => {
    const run = startStack();
    await until(run, 'streams and consumers: ready');
    process.kill(-run.child.pid!, 'SIGINT');
    process.kill(-run.child.pid!, 'SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.out).toContain('stopped: every service, nats-server and Postgres of the stack have exited');
    expect(running()).toEqual([]);
  }, 300_000);
});
