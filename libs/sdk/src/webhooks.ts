import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export { WebhookVerificationError };

/** The one envelope of every event a subscription receives (docs/webhooks.md). */
export interface WebhookEvent {
  /** The event id (`evt_…`), the same on every retry: drop duplicates by it. */
  id: string;
  type: string;
  created_at: number;
  channel: string | null;
  app_id: number | null;
  data: Record<string, unknown>;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

/** The three Standard Webhooks headers, whatever shape the receiver's framework gives them in. */
function webhookHeaders(headers: HeaderBag): Record<string, string> {
  const get = (name: string): string => {
    if (headers instanceof Headers) return headers.get(name) ?? '';
    const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    return Array.isArray(found) ? found.join(' ') : (found ?? '');
  };
  return Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, get(name)]));
}

/**
 * Verifies a webhook request (Standard Webhooks: HMAC-SHA256 of `{id}.{timestamp}.{body}` with the
 * subscription's `whsec_…` secret) and returns its event. `body` must be the raw bytes received,
 * before any JSON parsing. Pass both secrets during a rotation's grace period: either verifies.
 * Throws WebhookVerificationError when no secret verifies the signature or the timestamp is more
 * than 5 minutes away from this clock (a replay).
 */
export function verifyWebhook(secret: string | string[], body: string | Buffer, headers: HeaderBag): WebhookEvent {
  const payload = typeof body === 'string' ? body : body.toString('utf8');
  const signed = webhookHeaders(headers);
  let refusal: unknown = new WebhookVerificationError('No secret to verify with');
  for (const each of Array.isArray(secret) ? secret : [secret]) {
    try {
      return new Webhook(each).verify(payload, signed) as WebhookEvent;
    } catch (err) {
      refusal = err;
    }
  }
  throw refusal;
}
