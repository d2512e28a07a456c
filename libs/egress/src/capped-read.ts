/** An answer longer than the reader was allowed to take: the read stopped there and the stream was cancelled. */
export class AnswerTooLargeError extends Error {
  readonly code = 'EANSWERTOOLARGE';
  constructor(readonly limitBytes: number) {
    super(`the answer is larger than ${limitBytes} bytes`);
    this.name = 'AnswerTooLargeError';
  }
}

/**
 * Reads a body (a node Readable or a web ReadableStream: both are async iterables) up to
 * `maxBytes`. Past that it stops, leaving the loop cancels the web stream or destroys the node one
 * (its connection with it), and it throws AnswerTooLargeError: memory never grows past the cap,
 * whatever the other side sends.
 */
export async function readCapped(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new AnswerTooLargeError(maxBytes);
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(chunks, total);
}

/** Statuses whose Response cannot carry a body. */
const NULL_BODY = new Set([204, 205, 304]);

/**
 * A `fetch` whose answers are read at once, at most `maxBytes` of each: a bigger answer makes the
 * call itself fail with AnswerTooLargeError (for client libraries that call `res.json()` without a
 * limit). The signal may be any AbortSignal-like object (client libraries bring polyfills).
 */
export function cappedFetch(maxBytes: number, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    // Client libraries may bring an AbortSignal polyfill, which fetch refuses: bridge it.
    const given = init?.signal as
      { aborted: boolean; addEventListener(type: 'abort', fn: () => void, o?: object): void } | null | undefined;
    let signal: AbortSignal | undefined;
    if (given instanceof AbortSignal) signal = given;
    else if (given) {
      const bridge = new AbortController();
      if (given.aborted) bridge.abort();
      else given.addEventListener('abort', () => bridge.abort(), { once: true });
      signal = bridge.signal;
    }
    const res = await base(input, { ...init, signal });
    const body = res.body ? await readCapped(res.body, maxBytes) : null;
    return new Response(NULL_BODY.has(res.status) ? null : body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}
