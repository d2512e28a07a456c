import { Clock } from '@app/server';
import { classifyGraphFailure, GraphFailure, parseRetryAfter } from './graph-errors';
import { GraphErrorBody } from './graph.types';
import { HttpAnswer, HttpCall, httpCall } from '../http-call';

export const WHATSAPP_DEFAULT_API_VERSION = 'v21.0';
export const WHATSAPP_DEFAULT_TIMEOUT_MS = 10_000;

/** A Graph call the channel refused (`rejected`) or that could not reach it (`unavailable`). */
export class WhatsAppApiError extends Error {
  constructor(
    readonly kind: 'rejected' | 'unavailable',
    readonly code: string,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'WhatsAppApiError';
  }
}

export type GraphOutcome<T> = { ok: true; status: number; body: T } | { ok: false; failure: GraphFailure };

export interface GraphClientConfig {
  /** Graph API base URL: https://graph.facebook.com in production, the sandbox locally. */
  graphUrl: string;
  /** Graph API version path segment. */
  apiVersion?: string;
  /** Per request; a call that takes longer is abandoned and reported as a timeout. */
  timeoutMs?: number;
  /** The HTTP call (undici's pool by default); specs inject a fake `fetch`. */
  http?: HttpCall;
  /** What an HTTP-date `Retry-After` is measured from (the system clock by default). */
  clock?: Clock;
}

export interface GraphRequest {
  /** Sent as `Authorization: Bearer`; none for calls that authenticate by their parameters. */
  token?: string;
  body?: unknown;
  query?: Record<string, string>;
}

/** HTTP to the Graph API: one request, its outcome as data (never throws for HTTP or network trouble). */
export class GraphClient {
  private readonly baseUrl: string;
  readonly timeoutMs: number;
  private readonly http: HttpCall;
  private readonly clock: Clock;

  constructor(config: GraphClientConfig) {
    if (!config.graphUrl) throw new Error('GraphClient: graphUrl is required');
    this.baseUrl = `${config.graphUrl.replace(/\/+$/, '')}/${config.apiVersion || WHATSAPP_DEFAULT_API_VERSION}`;
    this.timeoutMs = config.timeoutMs ?? WHATSAPP_DEFAULT_TIMEOUT_MS;
    this.http = config.http ?? httpCall;
    this.clock = config.clock ?? new Clock();
  }

  async request<T>(method: 'GET' | 'POST' | 'DELETE', path: string, opts: GraphRequest = {}): Promise<GraphOutcome<T>> {
    const url = new URL(`${this.baseUrl}/${path}`);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
    let res: HttpAnswer;
    let text: string;
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      res = await this.http(url, {
        method,
        headers: {
          ...(opts.token !== undefined ? { Authorization: `Bearer ${opts.token}` } : {}),
          Accept: 'application/json',
          ...(opts.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        },
        body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
        signal,
      });
      text = await res.text();
    } catch (err) {
      if (signal.aborted) {
        return { ok: false, failure: { kind: 'timeout', timeoutMs: this.timeoutMs } };
      }
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : '';
      return {
        ok: false,
        failure: { kind: 'network', message: cause || (err instanceof Error ? err.message : String(err)) },
      };
    }
    const parsed = parseJson(text);
    if (res.ok) return { ok: true, status: res.status, body: (parsed ?? {}) as T };
    const graphError = (parsed as Partial<GraphErrorBody> | undefined)?.error;
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), this.clock.nowMs());
    return {
      ok: false,
      failure: {
        kind: 'http',
        status: res.status,
        ...(typeof graphError?.code === 'number' ? { code: graphError.code } : {}),
        ...(typeof graphError?.error_subcode === 'number' ? { subcode: graphError.error_subcode } : {}),
        message:
          graphError?.error_data?.details || graphError?.message || `HTTP ${res.status} ${res.statusText}`.trim(),
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      },
    };
  }

  /** The body of a successful call; a failure becomes a WhatsAppApiError (retryable ones `unavailable`). */
  async expect<T>(pending: GraphOutcome<T> | Promise<GraphOutcome<T>>): Promise<T> {
    const outcome = await pending;
    if (outcome.ok) return outcome.body;
    const c = classifyGraphFailure(outcome.failure);
    throw new WhatsAppApiError(c.retryable ? 'unavailable' : 'rejected', c.code, c.title, c.retryAfterMs);
  }
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
