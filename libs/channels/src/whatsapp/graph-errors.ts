import { parseRetryAfter } from '@app/contracts';
import { FailureScope, SendFailure } from '../channel-connector';
import { redactSecrets } from '../failure-text';

/** What went wrong talking to the Graph API, before deciding whether to retry. */
export type GraphFailure =
  | {
      kind: 'http';
      status: number;
      /** Graph's error code, when the body carried one. */
      code?: number;
      subcode?: number;
      message: string;
      retryAfterMs?: number;
    }
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'network'; message: string };

export type ClassifiedFailure = Omit<SendFailure, 'ok'>;

/**
 * Throughput limits: the channel will take the message later. The suggested wait applies when the
 * answer carries no Retry-After. 131056 is the pair limit (about one message per 6 s per
 * recipient): only that message waits; the others limit the sending number or the account.
 */
const RATE_LIMITED: Record<number, { waitMs: number; scope: FailureScope }> = {
  130429: { waitMs: 1_000, scope: 'sender' },
  131056: { waitMs: 6_000, scope: 'recipient' },
  80007: { waitMs: 60_000, scope: 'sender' },
  4: { waitMs: 60_000, scope: 'sender' },
  613: { waitMs: 60_000, scope: 'sender' },
};

/** Network errors raised before any byte reached the channel: nothing can have been sent. */
const NOT_CONNECTED = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH/;

/** Temporary trouble on the channel's side. */
const TEMPORARY = new Set([131000, 131016, 1, 2]);

/**
 * Refusals that a retry cannot fix: outside the 24-hour window (131047), template problems
 * (132xxx), undeliverable recipient (131026).
 */
const FINAL = new Set([131047, 132000, 132001, 132005, 132007, 132012, 132015, 132016, 131026]);

/**
 * Decides retryable or final from Graph's error code first, then from the HTTP status: 429, 5xx,
 * network errors and timeouts are retryable, any other 4xx is final.
 */
export function classifyGraphFailure(failure: GraphFailure): ClassifiedFailure {
  if (failure.kind === 'timeout') {
    // The request may have reached Graph: whether the message went out is unknown.
    return {
      retryable: true,
      scope: 'channel',
      outcomeUnknown: true,
      code: 'timeout',
      title: `The channel did not answer within ${failure.timeoutMs} ms`,
    };
  }
  if (failure.kind === 'network') {
    return {
      retryable: true,
      scope: 'channel',
      outcomeUnknown: !NOT_CONNECTED.test(failure.message),
      code: 'network_error',
      title: `The channel could not be reached: ${redactSecrets(failure.message)}`,
    };
  }
  const { code, status, retryAfterMs } = failure;
  const message = redactSecrets(failure.message);
  const codeText = code !== undefined ? String(code) : `http_${status}`;
  const wait = retryAfterMs !== undefined ? { retryAfterMs } : {};
  if (code !== undefined && code in RATE_LIMITED) {
    const limit = RATE_LIMITED[code];
    return {
      retryable: true,
      scope: limit.scope,
      code: codeText,
      title: message,
      retryAfterMs: retryAfterMs ?? limit.waitMs,
    };
  }
  if (code !== undefined && FINAL.has(code))
    return { retryable: false, scope: 'message', code: codeText, title: message };
  if (code !== undefined && TEMPORARY.has(code)) {
    return { retryable: true, scope: 'channel', code: codeText, title: message, ...wait };
  }
  if (status === 429) return { retryable: true, scope: 'sender', code: codeText, title: message, ...wait };
  if (status >= 500) return { retryable: true, scope: 'channel', code: codeText, title: message, ...wait };
  return { retryable: false, scope: 'message', code: codeText, title: message };
}

export { parseRetryAfter };
