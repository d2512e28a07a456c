import { classifyGraphFailure, parseRetryAfter } from './graph-errors';

const http = (status: number, code?: number, retryAfterMs?: number) =>
  classifyGraphFailure({ kind: 'http', status, code, message: `error ${code ?? status}`, retryAfterMs });

describe('classifyGraphFailure', () => {
  it.each([130429, 131056, 80007, 4, 613])('rate limit code %i is retryable with a wait', (code) => {
    const c = http(400, code);
    expect(c).toMatchObject({ retryable: true, code: String(code) });
    expect(c.retryAfterMs).toBeGreaterThan(0);
  });

  it('prefers the Retry-After the channel gave', () => {
    expect(http(429, 130429, 2500)).toEqual({
      retryable: true,
      scope: 'sender',
      code: '130429',
      title: 'error 130429',
      retryAfterMs: 2500,
    });
  });

  it.each([131047, 132000, 132001, 132005, 132007, 132012, 132015, 132016, 131026])('code %i is final', (code) => {
    expect(http(400, code)).toMatchObject({ retryable: false, code: String(code) });
  });

  it('a final code stays final even on a 5xx answer', () => {
    expect(http(500, 131026).retryable).toBe(false);
  });

  it.each([131000, 131016])('service trouble %i is retryable', (code) => {
    expect(http(500, code).retryable).toBe(true);
    expect(http(400, code).retryable).toBe(true);
  });

  it('any 5xx or 429 without a known code is retryable, other 4xx are final', () => {
    expect(http(500)).toMatchObject({ retryable: true, code: 'http_500' });
    expect(http(503)).toMatchObject({ retryable: true, code: 'http_503' });
    expect(http(429)).toMatchObject({ retryable: true, code: 'http_429' });
    expect(http(400, 100)).toMatchObject({ retryable: false, code: '100' });
    expect(http(401, 190)).toMatchObject({ retryable: false, code: '190' });
    expect(http(404)).toMatchObject({ retryable: false, code: 'http_404' });
  });

  it('says whom a transient refusal concerns: the pair limit one recipient, 429s the sender, 5xx the channel', () => {
    expect(http(400, 131056).scope).toBe('recipient');
    expect(http(400, 130429).scope).toBe('sender');
    expect(http(429).scope).toBe('sender');
    expect(http(503).scope).toBe('channel');
    expect(http(500, 131000).scope).toBe('channel');
    expect(http(400, 131026).scope).toBe('message');
  });

  it('a timeout or a cut connection leaves the outcome unknown; a refused connection sent nothing', () => {
    expect(classifyGraphFailure({ kind: 'timeout', timeoutMs: 100 }).outcomeUnknown).toBe(true);
    expect(classifyGraphFailure({ kind: 'network', message: 'other side closed' }).outcomeUnknown).toBe(true);
    expect(classifyGraphFailure({ kind: 'network', message: 'connect ECONNREFUSED 127.0.0.1:1' }).outcomeUnknown).toBe(
      false,
    );
  });

  it('timeouts and network errors are retryable', () => {
    expect(classifyGraphFailure({ kind: 'timeout', timeoutMs: 100 })).toMatchObject({
      retryable: true,
      code: 'timeout',
    });
    expect(classifyGraphFailure({ kind: 'network', message: 'ECONNREFUSED' })).toMatchObject({
      retryable: true,
      code: 'network_error',
    });
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('0.5', now)).toBe(500);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('Graph failure texts', () => {
  it('never carry the access token a failed call quoted', () => {
    const network = classifyGraphFailure({
      kind: 'network',
      message: 'connect ECONNREFUSED for https://graph.facebook.com/v21.0/me?access_token=EAAGsecret123456',
    });
    expect(network.title).not.toContain('EAAGsecret123456');
    const http = classifyGraphFailure({ kind: 'http', status: 400, message: 'Invalid token: Bearer EAAGsecret123456' });
    expect(http.title).not.toContain('EAAGsecret123456');
  });
});
