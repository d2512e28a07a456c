import { registerDecorator, ValidationOptions } from 'class-validator';
import { SecretBox } from '@app/auth';

/**
 * Keys sealing channel credentials (bot tokens), shared by the gateway (which seals) and the queue
 * (which opens): `id:base64(32 bytes)[,id:base64...]`, the first sealing. This development key is
 * public: production must set its own.
 */
export const DEV_CREDENTIALS_KEYS = 'dev:ZGV2ZWxvcG1lbnQtb25seS1rZXktMzItYnl0ZXMhISE=';

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
