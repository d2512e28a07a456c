import { createHmac } from 'node:crypto';

/**
 * `sha256=` and the hex HMAC-SHA256 of the exact bytes of a body under a shared key: WhatsApp's
 * `X-Hub-Signature-256`, and the `X-Signature` the gateway puts on course platforms' status events.
 */
export function sha256BodySignature(key: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', key).update(rawBody).digest('hex')}`;
}
