import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCheck } from '../run-check';

const ROOT = join(__dirname, '..', '..');
/** GENERATED_DIR of ./generate, which this spec does not load (openapi-typescript is loaded by the check). */
const GENERATED_DIR = join(ROOT, 'libs', 'sdk', 'src', 'generated');

const check = () => runCheck('sdk.ts');

/**
 * The committed SDK types are what the documents generate now: a change to a controller or DTO
 * that is not followed by `pnpm sdk:generate` fails here (and so in CI).
 */
describe('the SDK generated from the OpenAPI documents', () => {
  it('is committed as generated, and a stale file is named', async () => {
    expect(await check()).toEqual({ code: 0, output: 'the SDK is up to date with the OpenAPI documents\n' });

    const file = join(GENERATED_DIR, 'gateway.ts');
    const saved = join(mkdtempSync(join(tmpdir(), 'sdk-')), 'gateway.ts');
    copyFileSync(file, saved);
    try {
      writeFileSync(file, readFileSync(saved, 'utf8').replace("'/v1/messages/{id}'", "'/v1/message/{id}'"));
      const stale = await check();
      expect(stale.code).toBe(1);
      expect(stale.output).toContain('libs/sdk/src/generated/gateway.ts: not what the OpenAPI documents generate');
    } finally {
      copyFileSync(saved, file);
      rmSync(join(saved, '..'), { recursive: true, force: true });
    }
  }, 120_000);
});
