import { ConfigError, loadConfig } from './load-config';

/** For entry points: a bad or missing variable stops the process with a message naming it. */
export function loadConfigOrExit<T extends object>(cls: new () => T, service: string): T {
  try {
    return loadConfig(cls);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${service}: ${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}
