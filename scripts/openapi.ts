import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { previewOpenApiDocument } from '../apps/api/src/openapi/openapi-preview';

/**
 * Writes the api's OpenAPI document (as `/api/openapi.json` serves it) to the file given, without
 * starting any server: `pnpm openapi:lint` lints that file.
 */
async function main(): Promise<void> {
  const out = resolve(process.argv[2] ?? 'dist/openapi.json');
  const document = await previewOpenApiDocument();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
  process.stdout.write(`${out}: ${Object.keys(document.paths).length} paths\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${String(err instanceof Error ? err.stack : err)}\n`);
    process.exit(1);
  },
);
