import { randomBytes } from 'node:crypto';
import { SecretBox, SecretBoxError } from './secret-box';

describe('SecretBox', () => {
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);

  it('seals to ciphertext that names its key and opens back', () => {
    const box = new SecretBox({ k1 }, 'k1');
    const sealed = box.seal('123456:bot-token');
    expect(sealed).toMatch(/^v1\.k1\./);
    expect(sealed).not.toContain('bot-token');
    expect(box.open(sealed)).toBe('123456:bot-token');
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('opens values sealed with an older key after a rotation, and seals with the new one', () => {
    const old = new SecretBox({ k1 }, 'k1');
    const sealed = old.seal('secret');
    const rotated = SecretBox.fromSpec(`k2:${k2.toString('base64')},k1:${k1.toString('base64')}`);
    expect(rotated.open(sealed)).toBe('secret');
    expect(SecretBox.keyIdOf(rotated.seal('x'))).toBe('k2');
  });

  it('refuses a tampered value, an unknown key id and a malformed value', () => {
    const box = new SecretBox({ k1 }, 'k1');
    const sealed = box.seal('secret');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow(SecretBoxError);
    expect(() => new SecretBox({ k2 }, 'k2').open(sealed)).toThrow(/key "k1"/);
    expect(() => box.open('secret')).toThrow(/not a sealed value/);
  });

  it('checks key specs: 32-byte keys only', () => {
    expect(SecretBox.isValidSpec(randomBytes(32).toString('base64'))).toBe(true);
    expect(SecretBox.isValidSpec(randomBytes(16).toString('base64'))).toBe(false);
    expect(SecretBox.isValidSpec('')).toBe(false);
    expect(SecretBox.isValidSpec(`k1:${randomBytes(32).toString('base64').replace(/^./, '!')}`)).toBe(false);
  });

  it('binds a value to its additional data: it opens only with the same', () => {
    const box = new SecretBox({ k1 }, 'k1');
    const sealed = box.seal('whsec_abc', 'subscription-1');
    expect(box.open(sealed, 'subscription-1')).toBe('whsec_abc');
    expect(() => box.open(sealed, 'subscription-2')).toThrow(SecretBoxError);
    expect(() => box.open(sealed)).toThrow(SecretBoxError);
    expect(new SecretBox({ k1, k2 }, 'k2').keyIds).toEqual(['k2', 'k1']);
  });
});
