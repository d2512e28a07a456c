import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { GENERATED_DIR, generateSdkSources } from './sdk/generate';

/**
 * `pnpm sdk:generate`: regenerates the SDK's types from both OpenAPI documents (no server started).
 * With `--check` it writes nothing and fails when a committed file differs from what the documents
 * generate (`pnpm openapi:lint` and the unit tests run it so).
 */
async function main(check: boolean): Promise<number> {
  const stale: string[] = [];
  if (!check) mkdirSync(GENERATED_DIR, { recursive: true });
  for (const [file, source] of Object.entries(await generateSdkSources())) {
    const path = join(GENERATED_DIR, file);
    const shown = relative(process.cwd(), path);
    if (check) {
      let committed = '';
      try {
        committed = readFileSync(path, 'utf8');
      } catch {
        // A missing file is stale.
      }
      if (committed !== source) stale.push(shown);
      continue;
    }
    writeFileSync(path, source);
    process.stdout.write(`${shown}: ${source.split('\n').length} lines\n`);
  }
  if (stale.length === 0) {
    if (check) process.stdout.write('the SDK is up to date with the OpenAPI documents\n');
    return 0;
  }
  process.stderr.write(
    `${stale.join(', ')}: not what the OpenAPI documents generate; run \`pnpm sdk:generate\` and commit the result\n`,
  );
  return 1;
}

main(process.argv.includes('--check')).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${String(err instanceof Error ? err.stack : err)}\n`);
    process.exit(1);
  },
);
