import { randomBytes } from 'node:crypto';
import { SecretBox } from '@app/auth';
import { newMessageId } from '@app/contracts';
import { PixelTokens } from './pixel-token';

const key = () => randomBytes(32).toString('base64');

describe('PixelTokens', () => {
  const k1 = key();
  const tokens = new PixelTokens(SecretBox.fromSpec(`k1:${k1}`));
  const id = newMessageId();

  it('seals a message id into a 60-character base64url token that opens back to it', () => {
    const token = tokens.seal(id);
    expect(token).toMatch(/^[A-Za-z0-9_-]{60}$/);
    expect(tokens.open(token)).toBe(id);
  });

  it('shows no id in clear: neither the UUID nor its bytes appear in the token', () => {
    const token = tokens.seal(id);
    const hex = id.replace(/-/g, '');
    expect(token).not.toContain(hex);
    expect(Buffer.from(token, 'base64url').toString('hex')).not.toContain(hex.slice(0, 12));
  });

  it('gives a message the same token every time and different messages different tokens', () => {
    expect(tokens.seal(id)).toBe(tokens.seal(id));
    expect(tokens.seal(newMessageId())).not.toBe(tokens.seal(id));
  });

  it('opens a token with any single bit flipped to nothing', () => {
    const raw = Buffer.from(tokens.seal(id), 'base64url');
    for (let byte = 0; byte < raw.length; byte++) {
      const forged = Buffer.from(raw);
      forged[byte] ^= 0x01;
      expect(tokens.open(forged.toString('base64url'))).toBeNull();
    }
  });

  it('opens truncated, extended, made-up and malformed tokens to nothing', () => {
    const token = tokens.seal(id);
    expect(tokens.open(token.slice(0, 59))).toBeNull();
    expect(tokens.open(`${token}A`)).toBeNull();
    expect(tokens.open(randomBytes(45).toString('base64url'))).toBeNull();
    expect(tokens.open('')).toBeNull();
    expect(tokens.open(`${token.slice(0, 59)}=`)).toBeNull();
    expect(tokens.open(id)).toBeNull();
  });

  it('does not open tokens made under another key', () => {
    const other = new PixelTokens(SecretBox.fromSpec(`k1:${key()}`));
    expect(other.open(tokens.seal(id))).toBeNull();
  });

  it('keeps opening tokens of an older key after a rotation, and seals with the new one', () => {
    const rotated = new PixelTokens(SecretBox.fromSpec(`k2:${key()},k1:${k1}`));
    expect(rotated.open(tokens.seal(id))).toBe(id);
    expect(rotated.seal(id)).not.toBe(tokens.seal(id));
    expect(rotated.open(rotated.seal(id))).toBe(id);
  });

  it('uses a key of its own: a bot token sealing key never opens a pixel token', () => {
    const box = SecretBox.fromSpec(`k1:${k1}`);
    expect(box.derive('gateway tracking pixel token v1: encryption')[0].equals(Buffer.from(k1, 'base64'))).toBe(false);
  });

  it('refuses to seal something that is not a message id', () => {
    expect(() => tokens.seal('not-a-uuid')).toThrow(/UUID/);
  });
});
