import type { WebhookResponse } from './webhook-sender';

const MIN_RETRY_AFTER_MS = 1000;
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** What one attempt means for its delivery. */
export type Verdict =
  | { kind: 'success' }
  /** 410 Gone: the subscriber asked to stop; the subscription is disabled. */
  | { kind: 'gone' }
  | { kind: 'retry'; delayMs: number }
  /** The schedule is used up: the delivery is failed (and can be resent). */
  | { kind: 'exhausted' };

export function isSuccess(res: WebhookResponse): boolean {
  return res.status !== null && res.status >= 200 && res.status < 300;
}

/**
 * Judges one attempt. `retryIndex` counts the failed attempts before this one since the delivery
 * was created or resent; the schedule's entry at that index is the wait before the next attempt.
 * A 429 or 503 with `Retry-After` waits as long as the subscriber asked (within a day).
 */
export function judge(res: WebhookResponse, retryIndex: number, schedule: readonly number[]): Verdict {
  if (isSuccess(res)) return { kind: 'success' };
  if (res.status === 410) return { kind: 'gone' };
  if (retryIndex >= schedule.length) return { kind: 'exhausted' };
  if (res.retryAfterMs !== null && (res.status === 429 || res.status === 503)) {
    return { kind: 'retry', delayMs: Math.min(MAX_RETRY_AFTER_MS, Math.max(MIN_RETRY_AFTER_MS, res.retryAfterMs)) };
  }
  return { kind: 'retry', delayMs: schedule[retryIndex] };
}
