// What every benchmark reports: one figure per line, always beside a baseline measured in the same
// run, so the ratio means something on a noisy machine.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface BenchOptions {
  /** CI's smoke run: a few seconds per bench, asserting only that it completes with a figure. */
  smoke: boolean;
  /** Seconds a sustained measurement lasts (60 by default, 5 in a smoke run). */
  seconds: number;
  natsUrl: string;
  databaseUrl: string;
}

export interface BenchFigure {
  /** The bench that produced it: send, e2e, priority, webhooks, usage, consumer. */
  bench: string;
  /** What was measured, in words a reader of docs/performance.md understands. */
  figure: string;
  value: number;
  unit: string;
  /** The same measure of the baseline, taken in the same run. */
  baseline?: { name: string; value: number };
  /** value / baseline.value (or its inverse for lower-is-better units, stated in `figure`). */
  ratio?: number;
  /** Anything else worth keeping: latency percentiles, peak RSS, counts. */
  detail?: Record<string, number | string>;
}

export type Bench = (opts: BenchOptions) => Promise<BenchFigure[]>;

export const RESULTS_FILE = join(__dirname, '..', '..', 'bench', 'results.json');

/** Prints one JSON line per figure and merges them into bench/results.json (by bench and figure). */
export function report(figures: BenchFigure[], machine: Record<string, unknown>): void {
  for (const f of figures) process.stdout.write(`${JSON.stringify(f)}\n`);
  let previous: { figures: BenchFigure[] } = { figures: [] };
  try {
    previous = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as { figures: BenchFigure[] };
  } catch {
    // first run
  }
  const key = (f: BenchFigure) => `${f.bench}\u0000${f.figure}`;
  const fresh = new Set(figures.map(key));
  const merged = [...previous.figures.filter((f) => !fresh.has(key(f))), ...figures];
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(
    RESULTS_FILE,
    `${JSON.stringify({ at: new Date().toISOString(), machine, figures: merged }, null, 2)}\n`,
  );
}

/** The p-th percentile (0..100) of a list of numbers. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const median = (values: number[]): number => percentile(values, 50);

/** /proc counts CPU time in clock ticks of 1/100 s. */
const ticksToMs = (ticks: number): number => (ticks * 1000) / 100;

/**
 * CPU milliseconds one process has used (user and system), with what its exited children used
 * when `withChildren`; throws when the process is gone or /proc is not there.
 */
function statCpuMs(pid: number | string | undefined, withChildren: boolean): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const own = Number(fields[11]) + Number(fields[12]);
  return ticksToMs(withChildren ? own + Number(fields[13]) + Number(fields[14]) : own);
}

/**
 * CPU milliseconds the whole machine has spent busy so far, every core and process together
 * (PostgreSQL, NATS and the bench's clients included; Linux /proc; NaN elsewhere).
 */
export function machineCpuMs(): number {
  try {
    const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return ticksToMs(user + nice + system + irq + softirq + steal);
  } catch {
    return NaN;
  }
}

/**
 * `read(pid)` summed over every process whose command is `command` (Linux /proc; NaN elsewhere);
 * a process that ends while being read counts for nothing.
 */
function sumOverCommand(command: string, read: (pid: string) => number): number {
  try {
    let total = 0;
    for (const pid of processesOf(command)) {
      try {
        total += read(pid);
      } catch {
        // The process ended while being read.
      }
    }
    return total;
  } catch {
    return NaN;
  }
}

/**
 * CPU milliseconds used so far by every process whose command is `command` (Linux /proc; NaN
 * elsewhere), with what their exited children used: for PostgreSQL, the postmaster's count
 * includes the backends that ended meanwhile.
 */
export function commandCpuMs(command: string): number {
  return sumOverCommand(command, (pid) => statCpuMs(pid, true));
}

/** The process ids whose command (/proc/<pid>/comm) is `command`; throws without /proc. */
function processesOf(command: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === command;
    } catch {
      return false; // the process ended while being read
    }
  });
}

/**
 * Write system calls one process has made so far (/proc/<pid>/io, every thread); throws when the
 * process is gone or /proc is not there. Each socket write (to NATS, PostgreSQL, a client) is one,
 * so their count per message shows how many hops a message costs and how well they are batched.
 */
function statWriteSyscalls(pid: number | string | undefined): number {
  const count = /^syscw: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1];
  if (count === undefined) throw new Error(`no syscw in /proc/${pid}/io`);
  return Number(count);
}

/** Write system calls a process has made so far (Linux /proc; NaN elsewhere): see `statWriteSyscalls`. */
export function writeSyscalls(pid: number | undefined): number {
  try {
    return statWriteSyscalls(pid);
  } catch {
    return NaN;
  }
}

/** `writeSyscalls` over every process whose command is `command` (nats-server, say). */
export function commandWriteSyscalls(command: string): number {
  return sumOverCommand(command, statWriteSyscalls);
}

/**
 * CPU milliseconds a process has used so far (Linux /proc; NaN elsewhere): a service's cost per
 * unit of work, a figure a busy shared machine disturbs less than a rate.
 */
export function cpuMs(pid: number | undefined): number {
  try {
    return statCpuMs(pid, false);
  } catch {
    return NaN;
  }
}

/**
 * With CPU_PROFILE_DIR (scripts/bench/cpu-profile.js) and BENCH_PROFILE_PHASE set to `phase`, the
 * services' profiles cover that phase of a benchmark alone: `go` as it starts, `stop` as it ends.
 */
export function profilePhase(phase: string, mark: 'go' | 'stop'): void {
  const dir = process.env.CPU_PROFILE_DIR;
  if (dir && process.env.BENCH_PROFILE_PHASE === phase) writeFileSync(join(dir, mark), '');
}

/**
 * Each service's CPU milliseconds per unit of work (a message, a page, a recipient) between two
 * readings of its CPU use, to two decimals, under the name `name` gives the service.
 */
export function cpuPerUnit(
  before: Partial<Record<string, number>>,
  after: Partial<Record<string, number>>,
  units: number,
  name: (service: string) => string = (service) => service,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after).map(([service, ms]) => [
      name(service),
      Math.round((((ms ?? 0) - (before[service] ?? 0)) / units) * 100) / 100,
    ]),
  );
}
