import { rmSync } from 'node:fs';
import type { StartedInfra } from './global-setup';

/** Stops what the global setup started, last first, and removes its temporary directory. */
export default async function globalTeardown(): Promise<void> {
  const started = (globalThis as { __testInfra?: StartedInfra }).__testInfra;
  for (const s of (started?.services ?? []).reverse()) await s.stop();
  if (started?.dir) rmSync(started.dir, { recursive: true, force: true });
}
