import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { SecretBox } from '@app/auth';
import { isUuid } from '@app/contracts';

/** HKDF purposes: keys derived for the pixel are unrelated to the ones that seal bot tokens. */
const ENCRYPTION_INFO = 'gateway tracking pixel token v1: encryption';
const NONCE_INFO = 'gateway tracking pixel token v1: nonce';
const VERSION = 0x01;
/** version (1) + nonce (12) + the message id, sealed (16) + tag (16), in base64url. */
const TOKEN = /^[A-Za-z0-9_-]{60}$/;

/**
 * The tracking pixel's token: a message id sealed with AES-256-GCM under a key derived from the
 * gateway's credentials keys, in base64url (60 characters). Nothing in it reads as an id; only the
 * gateway can make one, and a token altered in any bit, cut short or made up opens to nothing.
 *
 * The nonce is derived from the message id (an HMAC under its own key), so a message always has
 * the same token and its pixel URL is stable; distinct messages never share a nonce. After a key
 * rotation, tokens made with an older key still open while that key is configured.
 */
export class PixelTokens {
  private readonly sealing: Buffer;
  private readonly opening: Buffer[];
  private readonly nonceKey: Buffer;

  constructor(box: SecretBox) {
    this.opening = box.derive(ENCRYPTION_INFO);
    this.sealing = this.opening[0];
    this.nonceKey = box.derive(NONCE_INFO)[0];
  }

  /** The token of a message (its id is a UUID). */
  seal(messageId: string): string {
    if (!isUuid(messageId)) throw new Error('a pixel token seals a message id (a UUID)');
    const plain = Buffer.from(messageId.replace(/-/g, ''), 'hex');
    const nonce = createHmac('sha256', this.nonceKey).update(plain).digest().subarray(0, 12);
    const cipher = createCipheriv('aes-256-gcm', this.sealing, nonce);
    cipher.setAAD(Buffer.of(VERSION));
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([Buffer.of(VERSION), nonce, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The message id a token names, or null for anything the gateway did not make. */
  open(token: string): string | null {
    if (!TOKEN.test(token)) return null;
    const raw = Buffer.from(token, 'base64url');
    if (raw.length !== 45 || raw[0] !== VERSION) return null;
    const nonce = raw.subarray(1, 13);
    const sealed = raw.subarray(13, 29);
    const tag = raw.subarray(29);
    for (const key of this.opening) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, nonce);
        decipher.setAAD(Buffer.of(VERSION));
        decipher.setAuthTag(tag);
        const hex = Buffer.concat([decipher.update(sealed), decipher.final()]).toString('hex');
        return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      } catch {
        // Not this key's (or not authentic): try the next one.
      }
    }
    return null;
  }
}
