import { RpcClient } from '@app/messaging';
import { GatewayConfig } from '../config';
import { Tenant, TenantResolver } from './tenant-resolver';

const connection = { channel: 'whatsapp' as const, phone_number_id: '100' };
const owner: Tenant = { app_id: 7, user_id: '0190a6c4-0000-7000-8000-000000000007' };

/** A resolver whose api answers with `answer()` (a promise: one that never settles is an api that hangs). */
function resolverWith(answer: () => Promise<unknown>, ttlMs = 1_000) {
  const call = jest.fn(answer);
  const config = Object.assign(new GatewayConfig(), { GATEWAY_TENANT_CACHE_MS: ttlMs });
  return { resolver: new TenantResolver({ call } as unknown as RpcClient, config), call };
}

describe("TenantResolver.within: a connection's owner while the channel waits", () => {
  afterEach(() => jest.useRealTimers());

  it('asks the api on the way and remembers the answer', async () => {
    const { resolver, call } = resolverWith(() => Promise.resolve(owner));
    expect(await resolver.within(connection, 500)).toEqual(owner);
    expect(await resolver.within(connection, 500)).toEqual(owner);
    expect(call).toHaveBeenCalledTimes(1);
  });

  it('gives nothing when the api does not answer in time, or fails; the answer that comes later is remembered', async () => {
    let answer!: (t: Tenant) => void;
    const { resolver, call } = resolverWith(() => new Promise((r) => (answer = r)));
    expect(await resolver.within(connection, 20)).toBeUndefined();
    answer(owner);
    await new Promise((r) => setImmediate(r));
    expect(await resolver.within(connection, 20)).toEqual(owner);
    expect(call).toHaveBeenCalledTimes(1);
    const failing = resolverWith(() => Promise.reject(new Error('no responders')));
    expect(await failing.resolver.within(connection, 500)).toBeUndefined();
  });

  it('gives an owner past its time while asking anew, for as long again; an unowned connection is asked at once', async () => {
    jest.useFakeTimers({ now: 0, doNotFake: ['setImmediate', 'nextTick'] });
    // The first question is answered with the owner; every later one hangs.
    const { resolver, call } = resolverWith(() => new Promise(() => undefined));
    call.mockImplementationOnce(() => Promise.resolve(owner));
    expect(await resolver.within(connection, 10)).toEqual(owner);
    jest.setSystemTime(1_500); // expired 500 ms ago
    expect(await resolver.within(connection, 10)).toEqual(owner);
    expect(call).toHaveBeenCalledTimes(2); // asked anew meanwhile
    jest.setSystemTime(2_100); // past twice its time: no longer given
    const late = resolver.within(connection, 10);
    jest.advanceTimersByTime(10);
    expect(await late).toBeUndefined();

    const unowned = resolverWith(() => Promise.resolve({ app_id: null, user_id: null }));
    expect(await unowned.resolver.within(connection, 10)).toEqual({ app_id: null, user_id: null });
    jest.setSystemTime(40_000);
    unowned.call.mockImplementation(() => Promise.resolve(owner));
    expect(await unowned.resolver.within(connection, 10)).toEqual(owner);
  });
});
