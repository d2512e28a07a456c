import { Problem, problemOf, ProblemError } from './problem';
import { csrfHeader, sessionLost } from './session';

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  /** Raw request body (a CSV file) sent with this content type instead of JSON. */
  raw?: { body: Blob | string; type: string };
  accept?: string;
}

/** The URL of a same-origin path with its query (empty and undefined values left out). */
export function urlOf(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/**
 * A same-origin request with the session cookie and, on a change, the CSRF token. Errors throw a
 * ProblemError with the gateway's problem body; a 401 outside the session routes ends the session.
 */
export async function send(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { Accept: opts.accept ?? 'application/json', ...csrfHeader(method) };
  let body: BodyInit | undefined;
  if (opts.raw) {
    headers['Content-Type'] = opts.raw.type;
    body = opts.raw.body;
  } else if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  let res: Response;
  try {
    res = await fetch(urlOf(path, opts.query), { method, headers, body, credentials: 'same-origin' });
  } catch {
    throw new ProblemError({ status: 0, title: 'network' });
  }
  if (!res.ok) {
    const problem: Problem = await problemOf(res);
    if (res.status === 401 && !path.startsWith('/console/api/session')) sessionLost();
    throw new ProblemError(problem);
  }
  return res;
}

/** A JSON request: the parsed answer (undefined for 204). */
export async function json<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await send(method, path, opts);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** Fetches a file (a CSV report) and hands it to the browser as a download named `name`. */
export async function download(path: string, query: RequestOptions['query'], name: string, accept = 'text/csv') {
  const res = await send('GET', path, { query, accept });
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
