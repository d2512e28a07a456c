import { constantTimeEqual, sha256BodySignature } from '@app/auth';

/** `X-Hub-Signature-256` value for a raw webhook body: `sha256=` + hex HMAC-SHA256 with the app secret. */
export function hubSignature(appSecret: string, rawBody: Buffer | string): string {
  return sha256BodySignature(appSecret, rawBody);
}

/**
 * Checks `X-Hub-Signature-256` against the exact bytes received (re-serialized JSON would not
 * match). Compares in constant time so the signature cannot be guessed byte by byte.
 */
export function verifyHubSignature(appSecret: string, rawBody: Buffer, header: string | undefined | null): boolean {
  if (!header || !/^sha256=[0-9a-fA-F]{64}$/.test(header)) return false;
  return constantTimeEqual(header.toLowerCase(), hubSignature(appSecret, rawBody));
}
