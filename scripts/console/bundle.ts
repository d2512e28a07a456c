import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The console app and its build output. */
export const CONSOLE_DIR = join(__dirname, '..', '..', 'apps', 'console');
export const CONSOLE_DIST = join(CONSOLE_DIR, 'dist');
/** The most compressed JavaScript the console's first load may fetch. */
export const FIRST_LOAD_JS_LIMIT = 250 * 1024;

function newest(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Whether dist is missing or older than any source of the app. */
export function consoleBuildStale(): boolean {
  const built = join(CONSOLE_DIST, 'index.html');
  if (!existsSync(built)) return true;
  const sources = ['src', 'index.html', 'vite.config.ts', 'package.json'].map((p) => join(CONSOLE_DIR, p));
  return Math.max(...sources.map(newest)) > statSync(built).mtimeMs;
}

/** Vite's build, run by its JS API in a child node process rooted at the app (vite is an ES module). */
const VITE_BUILD = [
  '--input-type=module',
  '-e',
  "const { build } = await import('vite'); await build({ root: process.cwd(), logLevel: 'warn' });",
];

/** Builds the console when its dist is missing or stale. */
export function buildConsoleIfStale(): void {
  if (!consoleBuildStale()) return;
  execFileSync(process.execPath, VITE_BUILD, { cwd: CONSOLE_DIR, stdio: 'inherit' });
}

/**
 * buildConsoleIfStale without blocking the caller (the stack still answers its signals meanwhile):
 * whether it built; a failed build rejects with vite's own output.
 */
export function buildConsoleIfStaleAsync(): Promise<boolean> {
  if (!consoleBuildStale()) return Promise.resolve(false);
  return new Promise((resolve, reject) =>
    execFile(process.execPath, VITE_BUILD, { cwd: CONSOLE_DIR }, (err, stdout, stderr) =>
      err
        ? reject(new Error(`the build failed: ${`${stderr}${stdout}`.trim().slice(-2000) || err.message}`))
        : resolve(true),
    ),
  );
}

export interface FirstLoad {
  files: { path: string; gzipBytes: number }[];
  gzipBytes: number;
}

/** The JavaScript dist/index.html loads at once (entry scripts and module preloads), gzipped. */
export function firstLoadJs(dist = CONSOLE_DIST): FirstLoad {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const refs = new Set<string>();
  for (const m of html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)) refs.add(m[1]);
  for (const m of html.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+)"/g)) refs.add(m[1]);
  const files = [...refs].map((ref) => {
    const path = join(dist, ref.replace(/^\/console\//, ''));
    return { path, gzipBytes: gzipSync(readFileSync(path), { level: 9 }).length };
  });
  return { files, gzipBytes: files.reduce((sum, f) => sum + f.gzipBytes, 0) };
}
