import { isAbsolute } from 'node:path';
import { registeredChannels } from '@app/contracts';
import { ConfigError } from './load-config';

/** The channels each module loaded so far registered: a module is loaded once per process. */
const loaded = new Map<string, readonly string[]>();

/**
 * Loads the modules CHANNEL_MODULES names (comma-separated absolute paths of JavaScript modules),
 * each of which registers at least one channel (`registerChannel`) and, for the queue, its
 * connector (`registerConnectorFactory`) when it is loaded (docs/channels.md#adding-a-channel).
 * A path that is not absolute, a module that cannot be loaded or throws, and a module that
 * registers no channel stop the start with a problem naming CHANNEL_MODULES.
 * Returns the channels each module registered.
 */
export function loadChannelModules(env: NodeJS.ProcessEnv = process.env): Map<string, readonly string[]> {
  const paths = (env.CHANNEL_MODULES ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const problems: string[] = [];
  const result = new Map<string, readonly string[]>();
  for (const path of paths) {
    const known = loaded.get(path);
    if (known) {
      result.set(path, known);
      continue;
    }
    if (!isAbsolute(path)) {
      problems.push(`CHANNEL_MODULES: ${path} is not an absolute path`);
      continue;
    }
    const before = new Set(registeredChannels().map((r) => r.name));
    try {
      // A module named at start, by path: loaded for what it registers.
      require(path);
    } catch (err) {
      problems.push(`CHANNEL_MODULES: ${path} cannot be loaded: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    const added = registeredChannels()
      .map((r) => r.name)
      .filter((name) => !before.has(name));
    if (added.length === 0) {
      problems.push(`CHANNEL_MODULES: ${path} registers no channel (it must call registerChannel when loaded)`);
      continue;
    }
    loaded.set(path, added);
    result.set(path, added);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return result;
}
