import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO_ROOT = join(__dirname, '..', '..');
/** A source file longer than this does more than one thing: split it by what its parts serve. */
const MAX_LINES = 500;
/** Written by the SDK and console type generators, not by hand. */
const GENERATED = ['libs/sdk/src/generated/'];

describe('source file length', () => {
  it(`keeps every tracked TypeScript file at ${MAX_LINES} lines or fewer, generated code excepted`, () => {
    const files = execFileSync('git', ['ls-files', '-z', '--', '*.ts', '*.tsx'], { cwd: REPO_ROOT, encoding: 'utf8' })
      .split('\0')
      .filter((f) => f && !GENERATED.some((g) => f.startsWith(g)));
    expect(files.length).toBeGreaterThan(100);
    const tooLong = files.flatMap((f) => {
      let text: string;
      try {
        text = readFileSync(join(REPO_ROOT, f), 'utf8');
      } catch {
        return []; // tracked but deleted in the working tree
      }
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      return lines > MAX_LINES ? [`${f} (${lines} lines)`] : [];
    });
    expect(tooLong).toEqual([]);
  });
});
