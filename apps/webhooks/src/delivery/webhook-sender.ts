import { parseRetryAfter } from '@app/contracts';
import * as http from 'node:http';
import * as https from 'node:https';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import { TargetPolicy } from '@app/egress';
import { Clock } from '@app/server';

/** How much of a subscriber's answer is kept in the attempts log. */
export const EXCERPT_BYTES = 1024;

export interface WebhookRequest {
  url: string;
  /** `webhook-id`: the event id, the same on every attempt. */
  eventId: string;
  /** The exact bytes that are signed and sent. */
  payload: string;
  /** Current secret first; during a rotation's grace period also the previous one. */
  secrets: string[];
}

export interface WebhookResponse {
  /** HTTP status, or null when no answer arrived (refused, timed out, refused by policy). */
  status: number | null;
  latencyMs: number;
  excerpt: string | null;
  error: string | null;
  /** From `Retry-After` on a 429 or 503, in milliseconds. */
  retryAfterMs: number | null;
  /** The attempt was cut short because this process is stopping: it does not count. */
  aborted: boolean;
}

/** The Standard Webhooks signature header: one `v1,<base64>` per secret, space-separated. */
export function signatureHeader(secrets: string[], eventId: string, at: Date, payload: string): string {
  return secrets.map((s) => new Webhook(s).sign(eventId, at, payload)).join(' ');
}

function describeError(err: NodeJS.ErrnoException, timeoutMs: number, timedOut: boolean): string {
  if (timedOut) return `no answer within ${timeoutMs} ms`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host not found (${err.code})`;
    case 'ECONNRESET':
      return 'connection reset by the subscriber';
    case 'EADDRNOTPUBLIC':
      return err.message;
    default:
      return `${err.code ? `${err.code}: ` : ''}${err.message}`.slice(0, 500);
  }
}

/**
 * Sends one signed POST and reports what happened; never throws. Redirects are not followed
 * (node's http client never does), the whole exchange is bounded by the timeout, and in
 * production every address the host resolves to is checked at connect time.
 */
export class WebhookSender {
  private readonly agents: { http: http.Agent; https: https.Agent };

  /**
   * `maxSockets` bounds connections per host; the dispatcher's own limits bound the attempts, so it
   * is set to the process's concurrency and never queues an attempt behind another subscriber's
   * on a shared host.
   */
  constructor(
    private readonly policy: TargetPolicy,
    private readonly timeoutMs: number,
    private readonly clock: Clock,
    maxSockets = 50,
    private readonly userAgent = 'messaging-platform-webhooks/1.0',
  ) {
    this.agents = {
      http: new http.Agent({ keepAlive: true, maxSockets }),
      https: new https.Agent({ keepAlive: true, maxSockets }),
    };
  }

  async send(req: WebhookRequest, signal?: AbortSignal): Promise<WebhookResponse> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const refused = (error: string): WebhookResponse => ({
      status: null,
      latencyMs: elapsed(),
      excerpt: null,
      error,
      retryAfterMs: null,
      aborted: false,
    });
    // Checked again before every attempt: the host's addresses may have changed since creation.
    const target = await this.policy.check(req.url);
    if (!target.ok) return refused(`refused by the target policy: url ${target.reason}`);
    if (signal?.aborted) return { ...refused('stopping'), aborted: true };

    const at = this.clock.now();
    const body = Buffer.from(req.payload, 'utf8');
    const headers: http.OutgoingHttpHeaders = {
      'content-type': 'application/json',
      'content-length': body.length,
      'user-agent': this.userAgent,
      'webhook-id': req.eventId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signatureHeader(req.secrets, req.eventId, at, req.payload),
    };
    const url = target.url;
    const isHttps = url.protocol === 'https:';
    const lookup = this.policy.connectLookup();

    return new Promise<WebhookResponse>((resolve) => {
      let settled = false;
      let timedOut = false;
      let status: number | null = null;
      let retryAfterMs: number | null = null;
      const chunks: Buffer[] = [];
      let kept = 0;

      const finish = (outcome: Partial<WebhookResponse>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const excerpt = kept > 0 ? Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8') : null;
        resolve({
          status,
          latencyMs: elapsed(),
          excerpt: status === null ? null : excerpt,
          error: null,
          retryAfterMs,
          aborted: false,
          ...outcome,
        });
      };

      const request = (isHttps ? https : http).request(
        url,
        {
          method: 'POST',
          headers,
          agent: isHttps ? this.agents.https : this.agents.http,
          ...(lookup ? { lookup: lookup as unknown as http.RequestOptions['lookup'] } : {}),
        },
        (res) => {
          status = res.statusCode ?? null;
          if (status === 429 || status === 503) {
            const header = res.headers['retry-after'];
            retryAfterMs = parseRetryAfter(Array.isArray(header) ? header[0] : header, this.clock.nowMs()) ?? null;
          }
          const location = res.headers.location;
          const redirectError =
            status !== null && status >= 300 && status < 400
              ? `redirect (${status}${location ? ` to ${String(location).slice(0, 200)}` : ''}) not followed`
              : null;
          res.on('data', (chunk: Buffer) => {
            if (kept < EXCERPT_BYTES) {
              chunks.push(chunk);
              kept += chunk.length;
            }
            if (kept >= EXCERPT_BYTES) {
              // Enough for the log; the rest of a large answer is not worth the wait.
              finish({ error: redirectError });
              res.destroy();
            }
          });
          res.on('end', () => finish({ error: redirectError }));
          res.on('error', () => finish({ error: redirectError }));
          res.on('close', () => finish({ error: redirectError }));
        },
      );

      const timer = setTimeout(() => {
        timedOut = true;
        if (status !== null) {
          // The status arrived in time; only the body lagged.
          finish({});
          request.destroy();
          return;
        }
        request.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }));
      }, this.timeoutMs);

      const onAbort = () => {
        finish({ status: null, error: 'stopping', aborted: true });
        request.destroy();
      };
      signal?.addEventListener('abort', onAbort, { once: true });

      request.on('error', (err: NodeJS.ErrnoException) => {
        if (status !== null) return finish({});
        finish({ status: null, error: describeError(err, this.timeoutMs, timedOut) });
      });
      request.end(body);
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
