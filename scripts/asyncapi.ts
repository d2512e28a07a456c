import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { ASYNCAPI_PATH, buildAsyncApiDocument, validateAsyncApi } from './asyncapi/generate';

/**
 * `pnpm asyncapi`: writes the AsyncAPI document of the NATS surface (docs/asyncapi.json) from the
 * topology, the stream and consumer declarations, the NATS permissions and the contracts. With
 * `--check` it writes nothing and fails when the committed document differs from what the sources
 * generate now, or when @asyncapi/parser finds an error in it (`pnpm openapi:lint` and the unit
 * tests run it so).
 */
async function main(check: boolean): Promise<number> {
  const text = `${JSON.stringify(buildAsyncApiDocument(), null, 2)}\n`;
  const shown = relative(process.cwd(), ASYNCAPI_PATH);
  const errors = await validateAsyncApi(text);
  if (errors.length > 0) {
    process.stderr.write(`${shown}: the generated document is not valid AsyncAPI:\n${errors.join('\n')}\n`);
    return 1;
  }
  if (!check) {
    writeFileSync(ASYNCAPI_PATH, text);
    process.stdout.write(`${shown}: ${Object.keys(JSON.parse(text).channels).length} channels\n`);
    return 0;
  }
  let committed = '';
  try {
    committed = readFileSync(ASYNCAPI_PATH, 'utf8');
  } catch {
    // A missing document is stale.
  }
  if (committed !== text) {
    process.stderr.write(`${shown}: not what the sources generate; run \`pnpm asyncapi\` and commit the result\n`);
    return 1;
  }
  process.stdout.write(`${shown} is up to date and valid AsyncAPI 3.0\n`);
  return 0;
}

main(process.argv.includes('--check')).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${String(err instanceof Error ? err.stack : err)}\n`);
    process.exit(1);
  },
);
