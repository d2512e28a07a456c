import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { previewOpenApiDocument } from '../apps/api/src/openapi/openapi-preview';
import { previewGatewayOpenApiDocument } from '../apps/gateway/src/openapi/openapi-preview';

/**
 * Writes the api's OpenAPI document (as `/api/openapi.json` serves it) and the gateway's (as
 * `/v1/openapi.json` serves it) to the files given, without starting any server:
 * `pnpm openapi:lint` lints both files.
 */
async function main(): Promise<void> {
  const targets = [
    { out: resolve(process.argv[2] ?? 'dist/openapi.json'), build: previewOpenApiDocument },
    { out: resolve(process.argv[3] ?? 'dist/gateway.openapi.json'), build: previewGatewayOpenApiDocument },
  ];
  for (const { out, build } of targets) {
    const document = await build();
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
    process.stdout.write(`${out}: ${Object.keys(document.paths).length} paths\n`);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${String(err instanceof Error ? err.stack : err)}\n`);
    process.exit(1);
  },
);
