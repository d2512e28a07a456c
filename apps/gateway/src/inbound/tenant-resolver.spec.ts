import { RpcClient } from '@app/messaging';
import { Clock } from '@app/server';
import { GatewayConfig } from '../config';
import { Tenant, TenantResolver } from './tenant-resolver';

const connection = { channel: 'whatsapp' as const, phone_number_id: '100' };
const owner: Tenant = { app_id: 7, user_id: '0190a6c4-0000-7000-8000-000000000007' };

/** A resolver whose api answers with `answer()` (a promise: one that never settles is an api that hangs). */
function resolverWith(answer: () => Promise<unknown>, ttlMs = 1_000) {
  const call = jest.fn(answer);
  const config = Object.assign(new GatewayConfig(), { GATEWAY_TENANT_CACHE_MS: ttlMs });
  return { resolver: new TenantResolver({ call } as unknown as RpcClient, config, new Clock()), call };
}

const answered = () => new Promise((r) => setImmediate(r));

describe("TenantResolver.known: a connection's owner without waiting for the api", () => {
  afterEach(() => jest.useRealTimers());

  it('gives nothing while the api is asked, then the answer it remembered', async () => {
    const { resolver, call } = resolverWith(() => Promise.resolve(owner));
    expect(resolver.known(connection)).toBeUndefined();
    await answered();
    expect(resolver.known(connection)).toEqual(owner);
    expect(resolver.known(connection)).toEqual(owner);
    expect(call).toHaveBeenCalledTimes(1);
  });

  it('gives nothing while the api fails, and asks again next time', async () => {
    const { resolver, call } = resolverWith(() => Promise.reject(new Error('no responders')));
    expect(resolver.known(connection)).toBeUndefined();
    await answered();
    expect(resolver.known(connection)).toBeUndefined();
    expect(call).toHaveBeenCalledTimes(2);
  });

  it('gives an owner past its time while asking anew, for as long again; an unowned connection is asked anew at once', async () => {
    jest.useFakeTimers({ now: 0, doNotFake: ['setImmediate', 'nextTick'] });
    // The first question is answered with the owner; every later one hangs.
    const { resolver, call } = resolverWith(() => new Promise(() => undefined));
    call.mockImplementationOnce(() => Promise.resolve(owner));
    resolver.known(connection);
    await answered();
    jest.setSystemTime(1_500); // expired 500 ms ago
    expect(resolver.known(connection)).toEqual(owner);
    expect(call).toHaveBeenCalledTimes(2); // asked anew meanwhile
    jest.setSystemTime(2_100); // past twice its time: no longer given
    expect(resolver.known(connection)).toBeUndefined();

    const unowned = resolverWith(() => Promise.resolve({ app_id: null, user_id: null }));
    unowned.resolver.known(connection);
    await answered();
    expect(unowned.resolver.known(connection)).toEqual({ app_id: null, user_id: null });
    jest.setSystemTime(40_000);
    unowned.call.mockImplementation(() => Promise.resolve(owner));
    expect(unowned.resolver.known(connection)).toBeUndefined();
    await answered();
    expect(unowned.resolver.known(connection)).toEqual(owner);
  });
});
