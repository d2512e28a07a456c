// Which pnpm installs this repository. pnpm 10 does (the `pnpm` settings of package.json and the
// lockfile are its); pnpm 11 and later read `packageManager` as a version to switch to and fetch it
// as @pnpm/exe, which the registry does not publish for every pnpm 10 release (for 10.34.9 that
// failed with ERR_PNPM_BAD_CONFIG_DEP). devEngines.packageManager with onFail "error" makes them
// stop first, with one sentence naming the version wanted, while corepack and pnpm 10 read the
// exact version in packageManager.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@app/testing';

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  packageManager: string;
  devEngines?: { packageManager?: { name: string; version: string; onFail: string } };
};
const pinned = /^pnpm@(\d+)\.(\d+)\.(\d+)$/.exec(manifest.packageManager);

describe('the package manager', () => {
  it('pnpm 10 is pinned exactly (corepack), and any other major stops with a sentence, never a download', () => {
    expect(pinned).not.toBeNull();
    const version = manifest.packageManager.slice('pnpm@'.length);
    expect(manifest.devEngines?.packageManager).toEqual({ name: 'pnpm', version: `^${version}`, onFail: 'error' });
    // CI and the README's quick start install the same pnpm.
    expect(readFileSync(join(REPO_ROOT, '.ci', 'run'), 'utf8')).toContain(`npm install -g pnpm@${version}`);
    expect(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')).toContain(`npm install -g pnpm@${pinned![1]} `);
  });

  it('the pnpm the tests run under installs the workspace from the lockfile alone (frozen, offline)', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'pnpm-install-'));
    try {
      for (const file of ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', 'patches']) {
        cpSync(join(REPO_ROOT, file), join(copy, file), { recursive: true });
      }
      for (const kind of ['apps', 'libs']) {
        for (const name of readdirSync(join(REPO_ROOT, kind))) {
          cpSync(join(REPO_ROOT, kind, name, 'package.json'), join(copy, kind, name, 'package.json'));
        }
      }
      // pnpm sets npm_execpath for the scripts it runs (`pnpm test`); else the one on the PATH.
      const pnpm = process.env.npm_execpath?.includes('pnpm') ? [process.execPath, process.env.npm_execpath] : ['pnpm'];
      const { stdout } = await promisify(execFile)(
        pnpm[0],
        [...pnpm.slice(1), 'install', '--frozen-lockfile', '--offline', '--ignore-scripts', '--reporter=append-only'],
        { cwd: copy, env: { ...process.env, CI: 'true' }, maxBuffer: 16 * 1024 * 1024 },
      );
      expect(stdout).toMatch(new RegExp(`Done in .* using pnpm v${pinned![1]}\\.`));
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 120_000);
});
