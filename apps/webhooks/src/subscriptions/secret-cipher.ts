import { SecretBox } from '@app/auth';
import { ConfigError, isDevelopmentKey, WEBHOOKS_DEVELOPMENT_KEY } from '@app/config';
import type { WebhooksConfig } from '../config';

/** Development and test only: a key everyone can read, refused in production. */
const DEVELOPMENT_KEY = { id: 'dev', key: WEBHOOKS_DEVELOPMENT_KEY };

/** A signing secret as stored: ciphertext and the id of the key that sealed it (null: stored in clear). */
export interface SealedSecret {
  keyId: string | null;
  value: string;
}

/**
 * Encrypts signing secrets at rest (AES-256-GCM, libs/auth SecretBox). The first key seals, any known key opens, so a
 * key is rotated by putting a new one first and re-sealing rows (housekeeping does it). The
 * subscription id is the additional data: a ciphertext copied to another row does not open.
 */
export class SecretCipher {
  private readonly box: SecretBox;

  constructor(
    readonly currentKeyId: string,
    keys: Map<string, Buffer>,
  ) {
    this.box = new SecretBox(Object.fromEntries(keys), currentKeyId);
  }

  /**
   * From WEBHOOK_SECRET_KEYS. Errors name the variable, never its value. Production refuses to
   * start without it, and with the development key.
   */
  static fromConfig(config: Pick<WebhooksConfig, 'WEBHOOK_SECRET_KEYS' | 'isProduction'>): SecretCipher {
    const raw = config.WEBHOOK_SECRET_KEYS?.trim();
    const refuse = (why: string) => new ConfigError([`WEBHOOK_SECRET_KEYS: ${why}`]);
    if (!raw) {
      if (config.isProduction) throw refuse('must be set in production (id:base64 of 32 random bytes)');
      return new SecretCipher(DEVELOPMENT_KEY.id, new Map([[DEVELOPMENT_KEY.id, DEVELOPMENT_KEY.key]]));
    }
    const keys = new Map<string, Buffer>();
    let current: string | undefined;
    for (const [i, entry] of raw.split(',').entries()) {
      const m = /^([A-Za-z0-9_-]{1,32}):([A-Za-z0-9+/]+={0,2})$/.exec(entry.trim());
      const key = m ? Buffer.from(m[2], 'base64') : null;
      if (!m || key?.length !== 32) throw refuse(`entry ${i + 1} must be id:base64 of 32 bytes`);
      if (keys.has(m[1])) throw refuse(`key id ${m[1]} appears twice`);
      // Any published development key (ours or the credentials one), whatever id it was given.
      if (config.isProduction && (m[1] === DEVELOPMENT_KEY.id || isDevelopmentKey(key))) {
        throw refuse('the development key is not allowed in production');
      }
      keys.set(m[1], key);
      current ??= m[1];
    }
    return new SecretCipher(current!, keys);
  }

  /** Ids of the keys that are not the current one (rows sealed with them are re-sealed). */
  get olderKeyIds(): string[] {
    return this.box.keyIds.slice(1);
  }

  seal(subscriptionId: string, secret: string): SealedSecret {
    return { keyId: this.box.currentKeyId, value: this.box.seal(secret, subscriptionId) };
  }

  open(subscriptionId: string, sealed: SealedSecret): string {
    if (sealed.keyId === null) return sealed.value;
    if (!this.box.keyIds.includes(sealed.keyId)) {
      throw new Error(`signing secret of subscription ${subscriptionId} is sealed with unknown key ${sealed.keyId}`);
    }
    return this.box.open(sealed.value, subscriptionId);
  }
}
