import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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
 * Compiles every service (swc, as `pnpm stack` does) into a fresh folder under node_modules/.cache,
 * named after `prefix`; the caller removes it.
 */
export function compileServicesBuild(prefix: string): string {
  const cache = join(REPO_ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const build = mkdtempSync(join(cache, `${prefix}-build-`));
  compileServices(build);
  return build;
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

/** Compiles the services and starts `name` from the build (compileServicesBuild, spawnBuiltService). */
export function startCompiledService(name: ServiceName, env: Record<string, string>): CompiledService {
  const build = compileServicesBuild(name);
  const child = spawnBuiltService(build, name, env);
  let tail = '';
  child.stdout?.resume();
  child.stderr?.on('data', (d: Buffer) => (tail = (tail + d.toString()).slice(-4000)));
  return {
    child,
    stderrTail: () => tail,
    async stop() {
      await killHard(child);
      rmSync(build, { recursive: true, force: true });
    },
  };
}
