import { ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_NODE_FLAGS } from '@app/config';
import { killHard, REPO_ROOT } from '@app/testing';
import { compileServices } from '../../scripts/stack';
import type { ServiceName } from './platform-env';

/** A service compiled and started as the container image runs it (node flags and heap limits included). */
export interface CompiledService {
  child: ChildProcess;
  /** The last lines it wrote to stderr (why it died, when it did). */
  stderrTail(): string;
  stop(): Promise<void>;
}

/**
 * The services compiled (swc, as `pnpm stack` does) into node_modules/.cache/services-build-<hash>,
 * where the hash covers every source file's path, size and modification time: suites, benchmarks
 * and the chaos clusters of one run share one build instead of compiling ten times. A build is
 * written to a folder of its own and renamed into place, so processes compiling at once never see
 * half a build; callers must not remove it. Builds of older sources are removed after an hour.
 */
export function compileServicesBuild(): string {
  const cache = join(REPO_ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const build = join(cache, `services-build-${sourcesHash()}`);
  if (existsSync(join(build, 'apps', 'api', 'src', 'main.js'))) return build;
  const fresh = mkdtempSync(join(cache, 'services-build-tmp-'));
  try {
    compileServices(fresh);
    renameSync(fresh, build);
  } catch (err) {
    rmSync(fresh, { recursive: true, force: true });
    // Another process renamed the same build into place first.
    if (!existsSync(join(build, 'apps', 'api', 'src', 'main.js'))) throw err;
  }
  removeStaleBuilds(cache, build);
  return build;
}

/** Path, size and modification time of every file swc compiles or copies (apps/ and libs/). */
function sourcesHash(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === 'node_modules' || entry.name === 'test' || entry.name === 'dist') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const st = statSync(path);
        hash.update(`${path}\0${st.size}\0${st.mtimeMs}\n`);
      }
    }
  };
  for (const top of ['apps', 'libs']) walk(join(REPO_ROOT, top));
  hash.update(readFileSync(join(REPO_ROOT, '.swcrc')));
  return hash.digest('hex').slice(0, 16);
}

const STALE_BUILD_MS = 3600_000;
function removeStaleBuilds(cache: string, keep: string): void {
  for (const name of readdirSync(cache)) {
    const path = join(cache, name);
    if (!name.startsWith('services-build-') || path === keep) continue;
    if (Date.now() - statSync(path).mtimeMs > STALE_BUILD_MS) rmSync(path, { recursive: true, force: true });
  }
}

/**
 * Starts `name` from a build with SERVICE_NODE_FLAGS: memory figures and heap limits are those of
 * production, which the on-the-fly TypeScript loader of `spawnTs` would distort (it keeps the
 * compiler and source maps in the heap). Its stdout and stderr are pipes for the caller to read.
 */
export function spawnBuiltService(build: string, name: ServiceName, env: Record<string, string>): ChildProcess {
  // The channel emulators are never deployed: they keep V8's default heap (a long run's records).
  const flags = name === 'sandbox' ? [] : SERVICE_NODE_FLAGS;
  return spawn(process.execPath, [...flags, join(build, 'apps', name, 'src', 'main.js')], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Starts `name` from the shared build (compileServicesBuild, spawnBuiltService). */
export function startCompiledService(name: ServiceName, env: Record<string, string>): CompiledService {
  const build = compileServicesBuild();
  const child = spawnBuiltService(build, name, env);
  let tail = '';
  child.stdout?.resume();
  child.stderr?.on('data', (d: Buffer) => (tail = (tail + d.toString()).slice(-4000)));
  return {
    child,
    stderrTail: () => tail,
    async stop() {
      await killHard(child);
    },
  };
}
