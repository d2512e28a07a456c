import { existsSync } from 'node:fs';

/** Where a headless Chromium is looked for, unless CHROMIUM_PATH names the one to use. */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export const CHROMIUM_INSTALL = 'apt-get install -y chromium (or set CHROMIUM_PATH)';

export function findChromium(): string | undefined {
  const given = process.env.CHROMIUM_PATH;
  return (given ? [given] : CANDIDATES).find((p) => existsSync(p));
}

/**
 * A test that needs a browser: it runs when a Chromium is found; otherwise it is reported skipped
 * with the install command, except under CI=true, where a missing browser fails it.
 */
export function browserIt(name: string, fn: () => Promise<void>, timeoutMs?: number): void {
  if (findChromium()) {
    it(name, fn, timeoutMs);
  } else if (process.env.CI === 'true') {
    it(name, () => {
      const looked = process.env.CHROMIUM_PATH ?? CANDIDATES.join(', ');
      throw new Error(`No Chromium found (${looked}): ${CHROMIUM_INSTALL}`);
    });
  } else {
    it.skip(`${name} [skipped: no Chromium; ${CHROMIUM_INSTALL}]`, fn);
  }
}
