import { judge } from './retry-policy';
import type { WebhookResponse } from './webhook-sender';

const res = (status: number | null, extra: Partial<WebhookResponse> = {}): WebhookResponse => ({
  status,
  latencyMs: 5,
  excerpt: null,
  error: status === null ? 'connection refused' : null,
  retryAfterMs: null,
  aborted: false,
  ...extra,
});

const SCHEDULE = [5000, 300_000, 1_800_000];

describe('retry policy', () => {
  it('treats 2xx as success and everything else as failure', () => {
    expect(judge(res(200), 0, SCHEDULE)).toEqual({ kind: 'success' });
    expect(judge(res(204), 0, SCHEDULE)).toEqual({ kind: 'success' });
    for (const status of [301, 302, 400, 404, 500, null]) {
      expect(judge(res(status), 0, SCHEDULE)).toEqual({ kind: 'retry', delayMs: 5000 });
    }
  });

  it('walks the schedule and is exhausted after its last step', () => {
    expect(judge(res(500), 1, SCHEDULE)).toEqual({ kind: 'retry', delayMs: 300_000 });
    expect(judge(res(500), 2, SCHEDULE)).toEqual({ kind: 'retry', delayMs: 1_800_000 });
    expect(judge(res(500), 3, SCHEDULE)).toEqual({ kind: 'exhausted' });
  });

  it('410 Gone asks to stop', () => {
    expect(judge(res(410), 0, SCHEDULE)).toEqual({ kind: 'gone' });
  });

  it('honours Retry-After on 429 and 503 only, within a second and a day', () => {
    expect(judge(res(429, { retryAfterMs: 120_000 }), 0, SCHEDULE)).toEqual({ kind: 'retry', delayMs: 120_000 });
    expect(judge(res(503, { retryAfterMs: 0 }), 0, SCHEDULE)).toEqual({ kind: 'retry', delayMs: 1000 });
    expect(judge(res(503, { retryAfterMs: 10 * 86_400_000 }), 0, SCHEDULE)).toEqual({
      kind: 'retry',
      delayMs: 86_400_000,
    });
    expect(judge(res(500, { retryAfterMs: 120_000 }), 0, SCHEDULE)).toEqual({ kind: 'retry', delayMs: 5000 });
  });
});
