import { createHmac, timingSafeEqual } from 'node:crypto';

/** `X-Hub-Signature-256` value for a raw webhook body: `sha256=` + hex HMAC-SHA256 with the app secret. */
export function hubSignature(appSecret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

/**
 * Checks `X-Hub-Signature-256` against the exact bytes received (re-serialized JSON would not
 * match). Compares in constant time so the signature cannot be guessed byte by byte.
 */
export function verifyHubSignature(appSecret: string, rawBody: Buffer, header: string | undefined | null): boolean {
  if (!header || !/^sha256=[0-9a-fA-F]{64}$/.test(header)) return false;
  const expected = Buffer.from(hubSignature(appSecret, rawBody).slice('sha256='.length), 'hex');
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
