import { createHash } from 'node:crypto';
import { registerDecorator, ValidationOptions } from 'class-validator';
import { SecretBox } from '@app/auth';

/**
 * Keys sealing channel credentials (bot tokens), shared by the gateway (which seals) and the queue
 * (which opens): `id:base64(32 bytes)[,id:base64...]`, the first sealing. This development key is
 * public: production must set its own.
 */
export const DEV_CREDENTIALS_KEYS = 'dev:ZGV2ZWxvcG1lbnQtb25seS1rZXktMzItYnl0ZXMhISE=';

/**
 * Keys published in the source for development and tests: the credentials key above and the
 * webhooks' signing-secret key. Whatever id a production key list gives them, they seal nothing.
 */
const DEVELOPMENT_KEYS: readonly Buffer[] = [
  Buffer.from(DEV_CREDENTIALS_KEYS.slice(DEV_CREDENTIALS_KEYS.indexOf(':') + 1), 'base64'),
  createHash('sha256').update('webhooks development secret key').digest(),
];

/** The webhooks' development key (WEBHOOK_SECRET_KEYS unset outside production). */
export const WEBHOOKS_DEVELOPMENT_KEY: Buffer = DEVELOPMENT_KEYS[1];

/** True when these key bytes are one of the published development keys. The one check every key list goes through. */
export function isDevelopmentKey(key: Buffer): boolean {
  return DEVELOPMENT_KEYS.some((dev) => dev.equals(key));
}

/** True when any entry of a key list (`id:base64[,id:base64...]`, or a lone base64 key) is a development key. */
export function hasDevelopmentKey(spec: unknown): boolean {
  if (typeof spec !== 'string') return false;
  return spec
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .some((entry) => isDevelopmentKey(Buffer.from(entry.slice(entry.indexOf(':') + 1), 'base64')));
}

/** True for a key list SecretBox can use: every key 32 bytes of base64, with an optional id. */
export function isCredentialsKeys(value: unknown): boolean {
  return typeof value === 'string' && SecretBox.isValidSpec(value);
}

export function IsCredentialsKeys(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isCredentialsKeys',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: `${String(propertyName)} must be id:base64 32-byte keys, comma-separated, the first sealing`,
        ...options,
      },
      validator: { validate: isCredentialsKeys },
    });
}
