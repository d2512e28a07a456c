import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..', '..');

/**
 * Runs a TypeScript entry point of the repository in a child process (the same loader as
 * `pnpm stack`), for tests that must kill a real process mid-work.
 */
export function spawnTs(entry: string, env: Record<string, string>, args: string[] = []): ChildProcess {
  return spawn(process.execPath, ['-r', join(REPO_ROOT, 'scripts', 'register.js'), join(REPO_ROOT, entry), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Resolves with the first stdout line matching `pattern` (fails if the process exits first). */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    let errBuf = '';
    const timer = setTimeout(
      () => reject(new Error(`no line matching ${pattern} in ${timeoutMs} ms; stderr: ${errBuf.slice(-2000)}`)),
      timeoutMs,
    );
    child.stderr?.on('data', (d: Buffer) => (errBuf += d.toString()));
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const line of lines) {
        if (pattern.test(line)) {
          clearTimeout(timer);
          resolve(line);
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`process exited with ${code} before printing ${pattern}; stderr: ${errBuf.slice(-2000)}`));
    });
  });
}

export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
