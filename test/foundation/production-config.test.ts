import { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { DEV_CREDENTIALS_KEYS } from '@app/config';
import { spawnTs } from '@app/testing';

/** Runs a service's entry point until it exits; the test fails if it starts instead. */
function run(service: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child: ChildProcess = spawnTs(`apps/${service}/src/main.ts`, {
    // Unreachable on purpose: a service that passed its configuration would fail later, differently.
    DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    NATS_URL: 'nats://127.0.0.1:1',
    LOG_LEVEL: 'silent',
    ...env,
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

const EX_CONFIG = 78;
const LEAKED = 'sandbox-app-secret';

describe('production refuses sandbox secrets and the sandbox itself', () => {
  it('the gateway stops naming every unset secret', async () => {
    const { code, stderr } = await run('gateway', {
      NODE_ENV: 'production',
      WHATSAPP_APP_SECRET: '',
      WHATSAPP_VERIFY_TOKEN: '',
      WHATSAPP_ACCESS_TOKEN: '',
    });
    expect(code).toBe(EX_CONFIG);
    for (const name of ['WHATSAPP_APP_SECRET', 'WHATSAPP_VERIFY_TOKEN', 'WHATSAPP_ACCESS_TOKEN']) {
      expect(stderr).toContain(`${name}: must be set explicitly in production`);
    }
  });

  it('the gateway refuses a secret set to a sandbox default and does not print it', async () => {
    const { code, stderr } = await run('gateway', {
      NODE_ENV: 'production',
      WHATSAPP_APP_SECRET: LEAKED,
      WHATSAPP_VERIFY_TOKEN: 'verify-token-from-the-secret-store',
      WHATSAPP_ACCESS_TOKEN: 'access-token-from-the-secret-store',
      WHATSAPP_TWO_STEP_PIN: '493817',
    });
    expect(code).toBe(EX_CONFIG);
    expect(stderr).toContain('WHATSAPP_APP_SECRET: must not be a sandbox default in production');
    expect(stderr).not.toContain(LEAKED);
    expect(stderr).not.toContain('WHATSAPP_VERIFY_TOKEN');
  });

  it('the gateway refuses the development credentials key renamed or beside another key', async () => {
    const devKey = DEV_CREDENTIALS_KEYS.split(':')[1];
    for (const CREDENTIALS_KEYS of [`prod:${devKey}`, `dev:${devKey},k2:${randomBytes(32).toString('base64')}`]) {
      const { code, stderr } = await run('gateway', {
        NODE_ENV: 'production',
        WHATSAPP_APP_SECRET: 'app-secret-from-the-secret-store',
        WHATSAPP_VERIFY_TOKEN: 'verify-token-from-the-secret-store',
        WHATSAPP_ACCESS_TOKEN: 'access-token-from-the-secret-store',
        WHATSAPP_TWO_STEP_PIN: '493817',
        CREDENTIALS_KEYS,
      });
      expect(code).toBe(EX_CONFIG);
      expect(stderr).toContain('CREDENTIALS_KEYS: must not contain a development key in production');
      expect(stderr).not.toContain(devKey);
    }
  });

  it('a queue delivering WhatsApp stops without its channel token', async () => {
    const { code, stderr } = await run('queue', {
      NODE_ENV: 'production',
      CHANNELS: 'telegram,whatsapp',
      WHATSAPP_ACCESS_TOKEN: '',
    });
    expect(code).toBe(EX_CONFIG);
    expect(stderr).toContain('WHATSAPP_ACCESS_TOKEN: must be set explicitly in production');
  });

  it('the api stops without its onboarding and consent secrets, and refuses sandbox onboarding and an unchecked send path', async () => {
    const { code, stderr } = await run('api', {
      NODE_ENV: 'production',
      WHATSAPP_MODE: 'sandbox',
      CONSENT_CHECK: 'off',
    });
    expect(code).toBe(EX_CONFIG);
    expect(stderr).toContain('ONBOARDING_SECRET: must be set explicitly in production');
    expect(stderr).toContain('CONSENT_ADDRESS_SECRET: must be set explicitly in production');
    expect(stderr).toContain('CONSENT_CHECK must not be off in production');
    expect(stderr).toContain('WHATSAPP_MODE must not be sandbox in production');
  });

  it('the sandbox does not start in production', async () => {
    const { code, stderr } = await run('sandbox', { NODE_ENV: 'production' });
    expect(code).toBe(EX_CONFIG);
    expect(stderr).toMatch(/NODE_ENV: .*never runs in production/);
  });
});
