import { request } from 'undici';
import { AnswerTooLargeError, readCapped } from './capped-read';
import { TargetPolicy } from './target-policy';

/** A download the target policy refused: the URL, or a redirect's next hop. */
export class TargetRefusedError extends Error {
  readonly code = 'ETARGETREFUSED';
  constructor(reason: string) {
    super(`refused by the target policy: url ${reason}`);
    this.name = 'TargetRefusedError';
  }
}

export interface TargetFetchOptions {
  policy: TargetPolicy;
  /** Largest body read; a bigger one is cut off and fails with AnswerTooLargeError. */
  maxBytes: number;
  signal: AbortSignal;
  /** Redirects followed, each hop checked like the first URL (https only when the policy is strict). */
  maxRedirects?: number;
}

export interface TargetAnswer {
  status: number;
  contentType: string | null;
  /** Empty unless the status is 2xx. */
  body: Buffer;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Drops a body without reading it (its connection is closed, not reused). */
function discard(body: { on(event: 'error', fn: () => void): unknown; destroy(): unknown }): void {
  body.on('error', () => undefined);
  body.destroy();
}

/**
 * GETs a URL a tenant gave (media to upload elsewhere): every hop is checked by the policy before
 * it is asked, every connection's address at connect time, a redirect is followed only to a URL
 * the policy accepts, and the body is read against the byte cap (a declared Content-Length over it
 * is refused before a byte is read). Throws TargetRefusedError, AnswerTooLargeError, or the
 * network error.
 */
export async function fetchTarget(raw: string, opts: TargetFetchOptions): Promise<TargetAnswer> {
  const maxRedirects = opts.maxRedirects ?? 3;
  let current = raw;
  for (let hop = 0; ; hop++) {
    const check = await opts.policy.check(current);
    if (!check.ok) throw new TargetRefusedError(check.reason);
    const dispatcher = opts.policy.dispatcher();
    const res = await request(check.url, {
      method: 'GET',
      signal: opts.signal,
      ...(dispatcher ? { dispatcher } : {}),
    });
    const header = (name: string): string | null => {
      const v = res.headers[name];
      return v === undefined ? null : Array.isArray(v) ? v[0] : v;
    };
    if (REDIRECTS.has(res.statusCode)) {
      discard(res.body);
      const location = header('location');
      if (!location || hop >= maxRedirects) return { status: res.statusCode, contentType: null, body: Buffer.alloc(0) };
      current = new URL(location, check.url).toString();
      continue;
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      discard(res.body);
      return { status: res.statusCode, contentType: null, body: Buffer.alloc(0) };
    }
    const declared = Number(header('content-length'));
    if (declared > opts.maxBytes) {
      discard(res.body);
      throw new AnswerTooLargeError(opts.maxBytes);
    }
    return {
      status: res.statusCode,
      contentType: header('content-type'),
      body: await readCapped(res.body, opts.maxBytes),
    };
  }
}
