import { STATUS_CODES } from 'node:http';
import { request } from 'undici';

/** What a channel client reads of an HTTP answer (a fetch `Response` has it too). */
export interface HttpAnswer {
  ok: boolean;
  status: number;
  statusText: string;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

export interface HttpInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Aborts the call, connection and body read included. */
  signal: AbortSignal;
}

/** One HTTP call. `fetch` is one (specs inject fakes of its shape); `httpCall` is the one services use. */
export type HttpCall = (url: URL, init: HttpInit) => Promise<HttpAnswer>;

/**
 * An HTTP call over undici's pooled, kept-alive connections, its answer's body read whole. It
 * costs a fraction of the CPU of `fetch` (no web streams, no Request/Response objects), which a
 * service that calls a channel for every message it sends pays on every call.
 */
export const httpCall: HttpCall = async (url, init) => {
  const res = await request(url, {
    method: init.method as 'GET' | 'POST' | 'DELETE',
    headers: init.headers,
    body: init.body,
    signal: init.signal,
  });
  const text = await res.body.text();
  const status = res.statusCode;
  return {
    ok: status >= 200 && status < 300,
    status,
    statusText: STATUS_CODES[status] ?? '',
    headers: {
      get: (name) => {
        const v = res.headers[name.toLowerCase()];
        return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
      },
    },
    text: () => Promise.resolve(text),
  };
};
