// `pnpm stack` as a developer's laptop runs it: the real script, in its own process group (so that
// everything it starts is stopped afterwards, even when a test fails), with its data in a
// temporary directory and every port away from the defaults.
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, freePortPair, REPO_ROOT, startTestInfra, TestInfra, waitFor } from '@app/testing';
import { FETCH_BLOCKED_PORTS, portIsFree } from '../../scripts/stack-ports';
import { stackBuildDir } from '../../scripts/stack';

interface StackRun {
  child: ChildProcess;
  out: string;
  err: string;
  exited: Promise<number | null>;
}

/** The command of package.json's `stack` script, run with this Node.js. */
function stackCommand(): string[] {
  const script = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { stack: string } })
    .scripts.stack;
  const [node, ...args] = script.split(' ');
  expect(node).toBe('node');
  return args;
}

/** Whether any process of the group `pgid` is still running. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('pnpm stack on a laptop', () => {
  const runs: StackRun[] = [];
  const servers: Server[] = [];
  const dataDirs: string[] = [];
  let infra: TestInfra;

  beforeAll(async () => {
    infra = await startTestInfra({ suite: 'stack', nats: false });
  });

  afterAll(async () => {
    for (const run of runs) {
      const pgid = run.child.pid;
      if (pgid === undefined || !groupAlive(pgid)) continue;
      process.kill(-pgid, 'SIGTERM');
      await waitFor(() => !groupAlive(pgid), 20_000, 'the stack to stop').catch(() => process.kill(-pgid, 'SIGKILL'));
    }
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    for (const dir of dataDirs) {
      rmSync(dir, { recursive: true, force: true });
      rmSync(stackBuildDir(dir), { recursive: true, force: true });
    }
    await infra?.stop();
  });

  function startStack(env: Record<string, string>): StackRun {
    const dataDir = mkdtempSync(join(tmpdir(), 'stack-test-'));
    dataDirs.push(dataDir);
    const inherited = { ...process.env };
    // A developer's shell: none of the test run's settings.
    for (const key of ['DATABASE_URL', 'NATS_URL', 'NATS_PREFIX', 'NODE_ENV', 'JEST_WORKER_ID']) delete inherited[key];
    const child = spawn(process.execPath, [...stackCommand(), '--smoke'], {
      cwd: REPO_ROOT,
      env: { ...inherited, STACK_DATA_DIR: dataDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const run: StackRun = {
      child,
      out: '',
      err: '',
      exited: new Promise((r) => child.once('close', (code) => r(code))),
    };
    child.stdout?.on('data', (d: Buffer) => (run.out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (run.err += d.toString()));
    runs.push(run);
    return run;
  }

  /** Ports for every service, its admin port free too, and for the stack's own nats-server. */
  async function freeStackPorts(): Promise<Record<string, string>> {
    const env: Record<string, string> = {};
    for (const variable of ['API_PORT', 'GATEWAY_PORT', 'QUEUE_PORT', 'WEBHOOKS_PORT', 'SANDBOX_PORT']) {
      env[variable] = String(await freePortPair(1000));
    }
    env.LOCAL_NATS_PORT = String(await freePort());
    env.DATABASE_URL = infra.databaseUrl;
    return env;
  }

  it('with another copy of the platform on its api and gateway ports, names them and what moves them, and starts nothing', async () => {
    const env = await freeStackPorts();
    // The other copy: it answers /readyz 200 on the admin ports, and 401 to the demo's requests.
    for (const port of [env.API_PORT, env.GATEWAY_PORT].flatMap((p) => [Number(p), Number(p) + 1000])) {
      const other = createServer((req, res) => res.writeHead(req.url === '/readyz' ? 200 : 401).end());
      servers.push(other);
      await new Promise<void>((r) => other.listen(port, '127.0.0.1', () => r()));
    }
    const run = startStack(env);
    expect(await run.exited).toBe(1);
    expect(run.err).toContain(
      `api: port ${env.API_PORT} is already in use by another program; stop it, or move the stack's with API_PORT=<port>.`,
    );
    expect(run.err).toContain(`gateway: port ${env.GATEWAY_PORT} is already in use`);
    expect(run.err).toMatch(/For example, with ports free now: GATEWAY_PORT=\d+ API_PORT=\d+ pnpm stack/);
    expect(run.out).not.toContain('ready');
    expect(run.out).not.toMatch(/postgres:|nats:/);
    expect(groupAlive(run.child.pid!)).toBe(false);
  });

  it('passes its smoke check on ports of its own, every URL following them, the api admin port a fetch-blocked one', async () => {
    const env = await freeStackPorts();
    // The api on a port whose admin port (+ 1000) is one fetch() refuses, as API_PORT=5000 has 6000.
    let apiPort: number | undefined;
    for (const blocked of [...FETCH_BLOCKED_PORTS].filter((p) => p > 2024)) {
      const port = blocked - 1000;
      if (apiPort || FETCH_BLOCKED_PORTS.has(port)) continue;
      if ((await portIsFree(port, '0.0.0.0')) && (await portIsFree(blocked, '0.0.0.0'))) apiPort = port;
    }
    if (apiPort === undefined) throw new Error('no free port here whose port + 1000 is a fetch-blocked one');
    env.API_PORT = String(apiPort);
    // And one admin port moved by its own setting (the stack waits for /readyz there).
    env.GATEWAY_ADMIN_PORT = String(await freePort());

    const run = startStack(env);
    const code = await run.exited;
    const output = `${run.out}\n${run.err}`;
    expect({ code, tail: code === 0 ? '' : output.slice(-4000) }).toEqual({ code: 0, tail: '' });
    expect(run.out).toContain('smoke check: passed');
    for (const [service, variable] of Object.entries({
      api: 'API_PORT',
      gateway: 'GATEWAY_PORT',
      queue: 'QUEUE_PORT',
      webhooks: 'WEBHOOKS_PORT',
      sandbox: 'SANDBOX_PORT',
    })) {
      expect(run.out).toMatch(new RegExp(`${service}\\s+ready on http://localhost:${env[variable]}\\s`));
    }
    expect(run.out).toContain(`nats: local nats-server -js with a user per service, port ${env.LOCAL_NATS_PORT}`);
    // Everything it started (services, nats-server) has stopped with it.
    await waitFor(() => !groupAlive(run.child.pid!), 10_000, 'every process of the stack to end');
  }, 300_000);
});
