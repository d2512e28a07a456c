import { randomBytes } from 'node:crypto';
import { ConfigError } from '@app/config';
import { SecretCipher } from './secret-cipher';

const key = () => randomBytes(32).toString('base64');
const SUB = '0190f0a0-0000-7000-8000-000000000001';

describe('signing secrets at rest', () => {
  it('seals with AES-256-GCM under the current key; the stored value is not the secret', () => {
    const cipher = SecretCipher.fromConfig({ WEBHOOK_SECRET_KEYS: `k2:${key()},k1:${key()}`, isProduction: true });
    const sealed = cipher.seal(SUB, 'whsec_abc');
    expect(sealed.keyId).toBe('k2');
    expect(sealed.value).not.toContain('whsec');
    expect(cipher.seal(SUB, 'whsec_abc').value).not.toBe(sealed.value);
    expect(cipher.open(SUB, sealed)).toBe('whsec_abc');
  });

  it('opens rows sealed with an older key after rotation, and legacy rows stored in clear', () => {
    const old = key();
    const before = SecretCipher.fromConfig({ WEBHOOK_SECRET_KEYS: `k1:${old}`, isProduction: false });
    const sealed = before.seal(SUB, 'whsec_old');
    const after = SecretCipher.fromConfig({ WEBHOOK_SECRET_KEYS: `k2:${key()},k1:${old}`, isProduction: false });
    expect(after.open(SUB, sealed)).toBe('whsec_old');
    expect(after.open(SUB, { keyId: null, value: 'whsec_clear' })).toBe('whsec_clear');
    const gone = SecretCipher.fromConfig({ WEBHOOK_SECRET_KEYS: `k2:${key()}`, isProduction: false });
    expect(() => gone.open(SUB, sealed)).toThrow(/unknown key k1/);
  });

  it('refuses a ciphertext moved to another subscription or tampered with', () => {
    const cipher = SecretCipher.fromConfig({ WEBHOOK_SECRET_KEYS: `k1:${key()}`, isProduction: false });
    const sealed = cipher.seal(SUB, 'whsec_abc');
    expect(() => cipher.open(SUB.replace(/1$/, '2'), sealed)).toThrow();
    const parts = sealed.value.split('.');
    const ct = Buffer.from(parts[3], 'base64url');
    ct[ct.length - 1] ^= 1;
    parts[3] = ct.toString('base64url');
    expect(() => cipher.open(SUB, { ...sealed, value: parts.join('.') })).toThrow();
  });

  it('production refuses to start without a key or with the development key, naming the variable only', () => {
    expect(() => SecretCipher.fromConfig({ isProduction: true })).toThrow(ConfigError);
    expect(() => SecretCipher.fromConfig({ isProduction: true })).toThrow(/WEBHOOK_SECRET_KEYS: must be set/);
    const dev = SecretCipher.fromConfig({ isProduction: false });
    expect(dev.currentKeyId).toBe('dev');
    expect(() => SecretCipher.fromConfig({ WEBHOOK_SECRET_KEYS: `dev:${key()}`, isProduction: true })).toThrow(
      /development key/,
    );
    const short = `k1:${randomBytes(16).toString('base64')}`;
    let message = '';
    try {
      SecretCipher.fromConfig({ WEBHOOK_SECRET_KEYS: short, isProduction: true });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/WEBHOOK_SECRET_KEYS: entry 1/);
    expect(message).not.toContain(short.slice(3));
  });
});
