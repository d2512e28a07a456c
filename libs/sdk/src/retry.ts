/** How a client retries a request the service refused for now (429, 503). */
export interface RetryOptions {
  /** Tries in all, the first one included (default 4; 1 never retries). */
  attempts?: number;
  /**
   * The longest wait before a retry (default 30 s). An answer whose Retry-After asks for longer is
   * returned as it is: waiting less than the service asked would only be refused again.
   */
  maxDelayMs?: number;
  /** The first wait when an answer has no Retry-After; it doubles at each retry (default 500 ms). */
  baseDelayMs?: number;
}

export interface RetryDeps {
  fetch?: (input: Request) => Promise<Response>;
  /** Waits `ms`, or rejects when `signal` aborts (tests pass a clock of their own). */
  sleep?: (ms: number, signal: AbortSignal | null) => Promise<void>;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * Whether a refused request may be sent again as it is. A 429 is refused before anything is done,
 * so always; a 503 may come after the work was done (a send the api accepted but did not confirm in
 * time), so only for a method that is idempotent or a request that carries an Idempotency-Key,
 * which makes the service answer a repeat with the first answer instead of doing it twice.
 */
export function isRetryable(request: Request, status: number): boolean {
  if (status === 429) return true;
  if (status !== 503) return false;
  return SAFE_METHODS.has(request.method.toUpperCase()) || request.headers.has('idempotency-key');
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const sleepFor = (ms: number, signal: AbortSignal | null): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });

/**
 * Sends the request `next` makes, and again (a new one from `next`) while the service answers 429,
 * or 503 where that is safe (isRetryable), waiting what Retry-After says (or a doubling wait without
 * it), within `attempts` tries and `maxDelayMs` per wait. `next(last)` is told whether this try is
 * the last one allowed; `retryable` replaces isRetryable where an operation says more (an import's
 * 503 is answered before anything is stored). The last answer is returned as it is.
 */
export function sendWithRetries(
  next: (last: boolean) => Request,
  options: RetryOptions = {},
  deps: RetryDeps = {},
  retryable: (request: Request, status: number) => boolean = isRetryable,
): Promise<Response> {
  const attempts = Math.max(1, options.attempts ?? 4);
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const send = deps.fetch ?? ((input: Request) => globalThis.fetch(input));
  const sleep = deps.sleep ?? sleepFor;
  return (async () => {
    for (let attempt = 1; ; attempt++) {
      const request = next(attempt >= attempts);
      const response = await send(request);
      if (attempt >= attempts || !retryable(request, response.status)) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      const wait = asked ?? Math.min(baseDelayMs * 2 ** (attempt - 1), maxDelayMs);
      if (wait > maxDelayMs) return response;
      // The refused answer is not read: release its connection before waiting.
      await response.body?.cancel().catch(() => undefined);
      await sleep(wait, request.signal);
    }
  })();
}

/**
 * A fetch that retries as sendWithRetries does. Every try sends a copy of the first request: the
 * same body and headers, the Idempotency-Key included.
 */
export function retryingFetch(options: RetryOptions = {}, deps: RetryDeps = {}): (input: Request) => Promise<Response> {
  return (request) => sendWithRetries((last) => (last ? request : request.clone()), options, deps);
}
