import { ApiConfig } from '../config';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';

function setup(opts: { claimed?: boolean; expired?: boolean } = {}) {
  const keys = {
    claim: jest.fn().mockResolvedValue(opts.claimed ?? true),
    takeOverExpired: jest.fn().mockResolvedValue(opts.expired ?? false),
    renew: jest.fn().mockResolvedValue(undefined),
    complete: jest.fn().mockResolvedValue(undefined),
    forget: jest.fn().mockResolvedValue(undefined),
    find: jest.fn().mockResolvedValue(null),
  };
  const config = { IDEMPOTENCY_TTL_HOURS: 24, IDEMPOTENCY_LEASE_SECONDS: 5 } as ApiConfig;
  return { keys, service: new IdempotencyService(keys as unknown as IdempotencyRepository, config) };
}

/** Work that ends when the test says. */
function pending() {
  let finish!: (v: { status: number; body: string }) => void;
  let fail!: (err: Error) => void;
  const promise = new Promise<{ status: number; body: string }>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return { work: () => promise, finish, fail };
}

describe('IdempotencyService: the lease of a key in progress', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('is renewed every second (a fifth of the lease) while the request runs, and no more once it answered', async () => {
    const { keys, service } = setup();
    const w = pending();
    const run = service.run('u1', 'k1', 'h', w.work);
    await jest.advanceTimersByTimeAsync(3500);
    expect(keys.renew).toHaveBeenCalledTimes(3);
    expect(keys.renew).toHaveBeenCalledWith('u1', 'k1');
    w.finish({ status: 201, body: 'm1' });
    await expect(run).resolves.toEqual({ status: 201, body: 'm1', replayed: false });
    await jest.advanceTimersByTimeAsync(5000);
    expect(keys.renew).toHaveBeenCalledTimes(3);
    expect(keys.complete).toHaveBeenCalledWith('u1', 'k1', 201, 'm1');
  });

  it('stops with a request that failed, which gives the key up', async () => {
    const { keys, service } = setup();
    const w = pending();
    const run = service.run('u1', 'k1', 'h', w.work);
    await jest.advanceTimersByTimeAsync(1500);
    w.fail(new Error('refused'));
    await expect(run).rejects.toThrow('refused');
    await jest.advanceTimersByTimeAsync(5000);
    expect(keys.renew).toHaveBeenCalledTimes(1);
    expect(keys.forget).toHaveBeenCalledWith('u1', 'k1');
  });

  it('a key whose lease ran out is taken over: what the first request committed is its answer', async () => {
    const { keys, service } = setup({ claimed: false, expired: true });
    const work = jest.fn();
    const answer = await service.run('u1', 'k1', 'h', work, async () => ({ status: 201, body: 'm0' }));
    expect(keys.takeOverExpired).toHaveBeenCalledWith('u1', 'k1', 'h', 5);
    expect(answer).toEqual({ status: 201, body: 'm0', replayed: true });
    expect(work).not.toHaveBeenCalled();
  });

  it('a key whose lease is alive is answered 409 with Retry-After', async () => {
    const { keys, service } = setup({ claimed: false, expired: false });
    keys.find.mockResolvedValue({ requestHash: 'h', state: 'PENDING', responseStatus: null });
    await expect(service.run('u1', 'k1', 'h', jest.fn())).rejects.toMatchObject({
      status: 409,
      headers: { 'Retry-After': '1' },
    });
  });
});
