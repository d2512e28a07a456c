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

export interface ClassifiedFailure {
  retryable: boolean;
  code: string;
  title: string;
  retryAfterMs?: number;
}

/**
 * Throughput limits: the channel will take the message later. The suggested wait applies when the
 * answer carries no Retry-After (131056 is the pair limit of about one message per 6 s per recipient).
 */
const RATE_LIMITED: Record<number, number> = {
  130429: 1_000,
  131056: 6_000,
  80007: 60_000,
  4: 60_000,
  613: 60_000,
};

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
    return { retryable: true, code: 'timeout', title: `The channel did not answer within ${failure.timeoutMs} ms` };
  }
  if (failure.kind === 'network') {
    return { retryable: true, code: 'network_error', title: `The channel could not be reached: ${failure.message}` };
  }
  const { code, status, message, retryAfterMs } = failure;
  const codeText = code !== undefined ? String(code) : `http_${status}`;
  if (code !== undefined && code in RATE_LIMITED) {
    return { retryable: true, code: codeText, title: message, retryAfterMs: retryAfterMs ?? RATE_LIMITED[code] };
  }
  if (code !== undefined && FINAL.has(code)) return { retryable: false, code: codeText, title: message };
  if (code !== undefined && TEMPORARY.has(code)) {
    return { retryable: true, code: codeText, title: message, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }
  if (status === 429 || status >= 500) {
    return { retryable: true, code: codeText, title: message, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }
  return { retryable: false, code: codeText, title: message };
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds from now. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
