/** A small HTTP client for the api's end-to-end suites. */

/** Response bodies of any shape, asserted with Jest matchers. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface HttpResult<T = Json> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  auth?: string;
  body?: unknown;
  /** Sent as is (malformed JSON, wrong content type, ...). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

export function client(baseUrl: string) {
  return async function call<T = Json>(method: string, path: string, opts: CallOptions = {}): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.auth) headers.authorization = opts.auth;
    let body: string | Buffer | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = undefined;
    if (text && /json/.test(res.headers.get('content-type') ?? '')) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };
}

/** Asserts an RFC 9457 problem answer and returns its body. */
export function expectProblem(res: HttpResult, status: number, type?: string): Json {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { status } });
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(typeof res.body.title).toBe('string');
  if (type) expect(res.body.type).toBe(type);
  return res.body;
}

/** Field names of a validation problem. */
export function errorFields(res: HttpResult): string[] {
  return ((res.body?.errors ?? []) as { field: string }[]).map((e) => e.field);
}
