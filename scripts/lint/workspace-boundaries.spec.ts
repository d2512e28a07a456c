import { execFile } from 'node:child_process';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..');
const FIXTURES = join(__dirname, 'test', 'fixtures', 'workspace');

interface LintResult {
  filePath: string;
  messages: { ruleId: string | null; message: string }[];
}

/** The repository's own ESLint configuration run on the fixture workspace: boundary messages per file. */
async function boundaryErrors(): Promise<Record<string, string[]>> {
  const eslint = join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');
  // ESLint exits 1 when it reports errors, which is what this fixture is for.
  const out = await promisify(execFile)(process.execPath, [eslint, '--no-ignore', '--format', 'json', FIXTURES], {
    cwd: ROOT,
  }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  const results = JSON.parse(out.stdout) as LintResult[];
  return Object.fromEntries(
    results.map((r) => [
      relative(FIXTURES, r.filePath),
      r.messages.filter((m) => m.ruleId === 'workspace/boundaries').map((m) => m.message),
    ]),
  );
}

describe('lint: workspace boundaries', () => {
  let errors: Record<string, string[]>;

  beforeAll(async () => {
    errors = await boundaryErrors();
  }, 30_000);

  it('fails an app importing another app', () => {
    expect(errors['apps/shop/src/imports-other-app.ts']).toEqual([
      'An app never imports another app (apps/till); share the code through a lib.',
    ]);
  });

  it('fails a library importing an app', () => {
    expect(errors['libs/kit/src/imports-an-app.ts']).toEqual(['A library never imports an app (apps/till).']);
  });

  it('fails contracts importing another lib of ours', () => {
    expect(errors['libs/contracts/src/imports-a-lib.ts']).toEqual([
      'contracts imports nothing of ours (messaging): it is the wire format every package shares.',
    ]);
  });

  it('fails an import of a lib the package.json does not declare', () => {
    expect(errors['apps/shop/src/imports-undeclared-lib.ts']).toEqual([
      'Declare "@app/lib-server": "workspace:*" in apps/shop/package.json (dependencies).',
    ]);
  });

  it('passes an app importing a lib it declares, and a package importing itself', () => {
    expect(errors['apps/shop/src/imports-declared-lib.ts']).toEqual([]);
    expect(errors['apps/till/src/till.ts']).toEqual([]);
  });
});
