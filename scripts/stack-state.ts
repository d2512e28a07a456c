// Where a running local stack is (the record the stack writes under its data directory, read by the
// operator CLI), and the processes of a stack that did not stop (found by the paths on their command
// lines, which only this data directory's stack uses).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = join(__dirname, '..');

/** Postgres and NATS data, logs, the demo's tokens and the stack record; STACK_DATA_DIR moves it. */
export function stackDataDir(env: NodeJS.ProcessEnv): string {
  return resolve(env.STACK_DATA_DIR || join(ROOT, '.data'));
}

/** Compiled services: inside node_modules, so that they find the packages and stay out of jest's sight; one per data directory. */
export function stackBuildDir(dataDir: string): string {
  const id = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12);
  return join(ROOT, 'node_modules', '.cache', 'stack-build', id);
}

/** What a running stack tells the CLI: written at start, removed at stop. */
export interface StackRecord {
  /** The stack's own process: a record whose process is gone is a stale one. */
  pid: number;
  database_url: string;
  nats_url: string;
  /** Each service's URL, once they are ready. */
  urls?: Record<string, string>;
  /** The demo, once seeded. */
  demo?: { user_id: string; app_id: number; phone: string; phone_number_id: string | null; waba_id: string | null };
}

export function stackRecordPath(dataDir: string): string {
  return join(dataDir, 'stack.json');
}

export function writeStackRecord(dataDir: string, record: StackRecord): void {
  const file = stackRecordPath(dataDir);
  // Written whole and renamed, so a reader never sees half a record; it holds the database password.
  writeFileSync(`${file}.tmp`, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** Removes the record if it is this process's (a second stack refused at start leaves the first's). */
export function removeStackRecord(dataDir: string): void {
  if (readStackRecord(dataDir)?.pid === process.pid) rmSync(stackRecordPath(dataDir), { force: true });
}

export function readStackRecord(dataDir: string): StackRecord | undefined {
  try {
    return JSON.parse(readFileSync(stackRecordPath(dataDir), 'utf8')) as StackRecord;
  } catch {
    return undefined;
  }
}

/** The command line of a live process, or undefined when there is none with that pid. */
function commandLine(pid: number): string | undefined {
  try {
    return execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a running `pnpm stack` (a pid the system gave to another program since is not). */
export function isStackProcess(pid: number): boolean {
  return /(^|[\s/])scripts\/stack\.(ts|js)(\s|$)/.test(commandLine(pid) ?? '');
}

/** The running stack of this data directory, or why there is none. */
export type StackLookup =
  { state: 'running'; record: StackRecord } | { state: 'stale'; record: StackRecord } | { state: 'none' };

export function findRunningStack(dataDir: string): StackLookup {
  const record = readStackRecord(dataDir);
  if (!record) return { state: 'none' };
  return { state: isStackProcess(record.pid) ? 'running' : 'stale', record };
}

/** A process the stack of this data directory started. */
export interface StackProcess {
  pid: number;
  ppid: number;
  /** nats-server, postgres, or the service's name. */
  what: string;
}

/**
 * The processes of this data directory's stack now running: its nats-server (`-sd <data>/nats`), its
 * Postgres (`-D <data>/postgres`) and its services (run from its build directory). Another Postgres or
 * nats-server on this machine never names these paths.
 */
export function stackProcesses(dataDir: string): StackProcess[] {
  const build = stackBuildDir(dataDir);
  const markers: { what: (args: string) => string | undefined }[] = [
    { what: (a) => (endsWithPathArg(a, '-sd', join(dataDir, 'nats')) ? 'nats-server' : undefined) },
    { what: (a) => (endsWithPathArg(a, '-D', join(dataDir, 'postgres')) ? 'postgres' : undefined) },
    { what: (a) => new RegExp(`${escape(join(build, 'apps'))}/(\\w+)/src/main\\.js`).exec(a)?.[1] },
  ];
  let listing = '';
  try {
    listing = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  } catch {
    return [];
  }
  const found: StackProcess[] = [];
  for (const line of listing.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (!m || Number(m[1]) === process.pid) continue;
    const what = markers.map((k) => k.what(m[3])).find(Boolean);
    if (what) found.push({ pid: Number(m[1]), ppid: Number(m[2]), what });
  }
  return found;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether the command line passes `flag path` (the path whole, not a prefix of a longer one). */
function endsWithPathArg(args: string, flag: string, path: string): boolean {
  return new RegExp(`(^|\\s)${escape(flag)}\\s+${escape(path)}/?(\\s|$)`).test(args);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Waits (polling) until none of `pids` runs, up to `ms`; returns those still running. */
async function waitGone(pids: number[], ms: number): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    const left = pids.filter(alive);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Ends what a stack of this data directory left running when it could not stop (killed with
 * SIGKILL, a crash): services first, then nats-server and Postgres (SIGINT: its fast shutdown),
 * SIGKILL for any still there after 10 s. Returns what was ended.
 */
export async function endLeftovers(left: StackProcess[]): Promise<StackProcess[]> {
  const services = left.filter((p) => p.what !== 'nats-server' && p.what !== 'postgres');
  const stores = left.filter((p) => !services.includes(p));
  for (const group of [services, stores]) {
    for (const p of group) signal(p.pid, p.what === 'postgres' ? 'SIGINT' : 'SIGTERM');
    for (const pid of await waitGone(
      group.map((p) => p.pid),
      10_000,
    ))
      signal(pid, 'SIGKILL');
    await waitGone(
      group.map((p) => p.pid),
      5_000,
    );
  }
  return left;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

/** A path as the user may type it, from where the command was started. */
export function shownPath(path: string): string {
  return relative(process.cwd(), path) || '.';
}
