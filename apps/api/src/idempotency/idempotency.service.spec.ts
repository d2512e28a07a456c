import { ApiConfig } from '../config';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';

function setup(opts: { claimed?: boolean; expired?: boolean } = {}) {
  const keys = {
    claim: jest.fn().mockResolvedValue(opts.claimed ?? true),
    takeOverExpired: jest.fn().mockResolvedValue(opts.expired ?? false),
    renew: jest.fn().mockResolvedValue(undefined),
    complete: jest.fn().mockResolvedValue(true),
    forget: jest.fn().mockResolvedValue(true),
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
    const holder = keys.claim.mock.calls[0][4] as string;
    expect(keys.renew).toHaveBeenCalledWith([{ userId: 'u1', key: 'k1', holder }]);
    w.finish({ status: 201, body: 'm1' });
    await expect(run).resolves.toEqual({ status: 201, body: 'm1', replayed: false });
    await jest.advanceTimersByTimeAsync(5000);
    expect(keys.renew).toHaveBeenCalledTimes(3);
    expect(keys.complete).toHaveBeenCalledWith('u1', 'k1', holder, 201, 'm1');
  });

  it('renews the leases of all requests in progress together, one statement a tick', async () => {
    const { keys, service } = setup();
    const works = ['k1', 'k2', 'k3'].map(() => pending());
    const runs = works.map((w, i) => service.run('u1', `k${i + 1}`, 'h', w.work));
    await jest.advanceTimersByTimeAsync(1100);
    expect(keys.renew).toHaveBeenCalledTimes(1);
    const holders = keys.claim.mock.calls.map((c) => c[4] as string);
    expect(keys.renew).toHaveBeenCalledWith(holders.map((holder, i) => ({ userId: 'u1', key: `k${i + 1}`, holder })));
    works[1].finish({ status: 201, body: 'm2' });
    await runs[1];
    await jest.advanceTimersByTimeAsync(1000);
    expect(keys.renew).toHaveBeenCalledTimes(2);
    expect(keys.renew).toHaveBeenLastCalledWith([
      { userId: 'u1', key: 'k1', holder: holders[0] },
      { userId: 'u1', key: 'k3', holder: holders[2] },
    ]);
    works[0].finish({ status: 201, body: 'm1' });
    works[2].finish({ status: 201, body: 'm3' });
    await Promise.all(runs);
    await jest.advanceTimersByTimeAsync(3000);
    expect(keys.renew).toHaveBeenCalledTimes(2);
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
    expect(keys.forget).toHaveBeenCalledWith('u1', 'k1', keys.claim.mock.calls[0][4]);
  });

  it('a key whose lease ran out is taken over: what the first request committed is its answer', async () => {
    const { keys, service } = setup({ claimed: false, expired: true });
    const work = jest.fn();
    const answer = await service.run('u1', 'k1', 'h', work, async () => ({ status: 201, body: 'm0' }));
    expect(keys.takeOverExpired).toHaveBeenCalledWith('u1', 'k1', 'h', 5, expect.any(String));
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

describe('IdempotencyService: the key is a fence', () => {
  it("the work gets the lease its send commits under; a retry's takeover holds it with a token of its own", async () => {
    const { keys, service } = setup();
    const work = jest.fn().mockResolvedValue({ status: 201, body: 'm1' });
    await service.run('u1', 'k1', 'h', work);
    const holder = keys.claim.mock.calls[0][4] as string;
    expect(work).toHaveBeenCalledWith({ key: 'k1', hash: 'h', holder });

    const taken = setup({ claimed: false, expired: true });
    const retry = jest.fn().mockResolvedValue({ status: 201, body: 'm2' });
    await taken.service.run('u1', 'k1', 'h', retry);
    const next = taken.keys.takeOverExpired.mock.calls[0][4] as string;
    expect(next).not.toBe(holder);
    expect(retry).toHaveBeenCalledWith({ key: 'k1', hash: 'h', holder: next });
  });

  it('without a key the work runs with no lease', async () => {
    const { keys, service } = setup();
    const work = jest.fn().mockResolvedValue({ status: 201, body: 'm1' });
    await expect(service.run('u1', undefined, 'h', work)).resolves.toEqual({
      status: 201,
      body: 'm1',
      replayed: false,
    });
    expect(work).toHaveBeenCalledWith(null);
    expect(keys.claim).not.toHaveBeenCalled();
  });

  it('a request that lost its key to a takeover is answered with the message the key committed', async () => {
    const { keys, service } = setup();
    keys.forget.mockResolvedValue(false);
    keys.complete.mockResolvedValue(false);
    const lost = Object.assign(new Error('taken over'), { status: 409 });
    const answer = await service.run(
      'u1',
      'k1',
      'h',
      () => Promise.reject(lost),
      async () => ({ status: 201, body: 'm2' }),
    );
    expect(answer).toEqual({ status: 201, body: 'm2', replayed: true });
  });

  it('a send whose commit was answered with an error but committed is answered with its message, the key kept', async () => {
    const { keys, service } = setup();
    keys.forget.mockResolvedValue(false);
    const answer = await service.run(
      'u1',
      'k1',
      'h',
      () => Promise.reject(new Error('Connection terminated unexpectedly')),
      async () => ({ status: 201, body: 'm1' }),
    );
    expect(answer).toEqual({ status: 201, body: 'm1', replayed: false });
    expect(keys.complete).toHaveBeenCalledWith('u1', 'k1', keys.claim.mock.calls[0][4], 201, 'm1');
  });

  it('a key kept with nothing committed under it yet (the taker still runs): the failure stands', async () => {
    const { keys, service } = setup();
    keys.forget.mockResolvedValue(false);
    await expect(
      service.run(
        'u1',
        'k1',
        'h',
        () => Promise.reject(new Error('taken over')),
        async () => null,
      ),
    ).rejects.toThrow('taken over');
    expect(keys.complete).not.toHaveBeenCalled();
  });

  it('a failure with the key given up never looks for a committed send', async () => {
    const { service } = setup();
    const recover = jest.fn();
    await expect(service.run('u1', 'k1', 'h', () => Promise.reject(new Error('refused')), recover)).rejects.toThrow(
      'refused',
    );
    expect(recover).not.toHaveBeenCalled();
  });
});
