import type { components } from './generated/gateway';

/** An RFC 9457 problem: the body of every error answer of both services. */
export type Problem = components['schemas']['ProblemDto'];

export interface WaitOptions {
  /** Gives up (throws) after this long (default 60 s). */
  timeoutMs?: number;
  /** Between two reads of the report (default 500 ms). */
  intervalMs?: number;
}

/** An error answer of a service: its status and its RFC 9457 problem body. */
export class MessagingError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
  ) {
    super(`${status} ${problem?.title ?? 'error'}${problem?.detail ? `: ${problem.detail}` : ''}`);
    this.name = 'MessagingError';
  }
}

/**
 * The data of a success answer of `client.http`, or a MessagingError with its problem:
 * `unwrap(await gateway.http.GET('/v1/connections'))`.
 */
export function unwrap<D>(result: { data?: D; error?: unknown; response: Response }): D {
  if (result.error !== undefined || !result.response.ok) {
    throw new MessagingError(result.response.status, result.error as Problem | undefined);
  }
  return result.data as D;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads a status until `settled` says it is final, or throws after `timeoutMs`. */
export async function waitUntil<T extends { status?: string; state?: string }>(
  read: () => Promise<T>,
  settled: (value: T) => boolean,
  what: string,
  { timeoutMs = 60_000, intervalMs = 500 }: WaitOptions,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (settled(value)) return value;
    if (Date.now() + intervalMs > deadline) {
      throw new Error(`${what} is still ${value.status ?? value.state} after ${timeoutMs} ms`);
    }
    await sleep(intervalMs);
  }
}
