import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..');

/**
 * `scripts/<script> --check` in a process of its own, as CI runs it (its generators may load ES
 * modules, which jest cannot): the exit code and what it printed (stdout on success, stderr otherwise).
 */
export async function runCheck(script: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', './scripts/register.js', `scripts/${script}`, '--check'],
      { cwd: ROOT },
    );
    return { code: 0, output: stdout };
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, output: e.stderr };
  }
}
