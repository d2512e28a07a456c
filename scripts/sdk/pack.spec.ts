import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dependencyDrift, SDK_DIR } from './pack';

const manifest = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe('the SDK package', () => {
  const sdk = manifest(join(SDK_DIR, 'package.json'));

  it('declares every package its sources import, at the ranges the workspace is tested with', () => {
    expect(Object.keys(sdk.dependencies).sort()).toEqual(['openapi-fetch', 'standardwebhooks']);
    expect(dependencyDrift(sdk, manifest(join(SDK_DIR, '..', '..', 'package.json')))).toEqual([]);
    expect(dependencyDrift(sdk, { name: 'w', version: '0', dependencies: { 'openapi-fetch': '^0.13.0' } })).toEqual([
      'openapi-fetch: the SDK declares ^0.17.0, the workspace ^0.13.0',
      'standardwebhooks: the SDK declares ^1.0.0, the workspace undefined',
    ]);
  });

  it('has a CHANGELOG entry for its version', () => {
    expect(readFileSync(join(SDK_DIR, 'CHANGELOG.md'), 'utf8')).toContain(`\n## ${sdk.version}\n`);
  });
});
