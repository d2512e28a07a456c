import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  APPS_RPC,
  ResolveConnectionReply,
  ResolveConnectionRequest,
  RpcProblem,
  RpcReply,
  SubscriptionRef,
  SUBSCRIPTIONS_RPC,
  SubscriptionView,
  TenantScoped,
} from '@app/contracts';
import { PrefixedServerNats, RpcClient, rpcAnswer } from '@app/messaging';
import { rpcProblem, startTestInfra, TestInfra } from '@app/testing';

class Refused extends Error {}

const notFound: RpcProblem = { status: 404, slug: 'not-found', title: 'Not found', detail: 'No such subscription.' };

/** A responder of three subjects: one answers, one refuses, one fails unexpectedly. */
@Controller()
class Responder {
  @MessagePattern(APPS_RPC.resolveConnection)
  resolve(@Payload() req: ResolveConnectionRequest): Promise<RpcReply<ResolveConnectionReply>> {
    return rpcAnswer(
      () => (req.waba_id === '1' ? { app_id: 7, user_id: 'u-1' } : { app_id: null, user_id: null }),
      () => undefined,
    );
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.get)
  get(@Payload() _req: SubscriptionRef): Promise<RpcReply<SubscriptionView>> {
    return rpcAnswer(
      () => {
        throw new Refused();
      },
      (err) => (err instanceof Refused ? notFound : undefined),
    );
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.list)
  list(@Payload() _req: TenantScoped): Promise<RpcReply<SubscriptionView[]>> {
    return rpcAnswer(
      () => {
        throw new Error('database down');
      },
      (err) => (err instanceof Refused ? notFound : undefined),
    );
  }
}

@Module({ controllers: [Responder] })
class ResponderModule {}

describe('request/reply: one call, one reply shape, one mapping of failures to problems', () => {
  let infra: TestInfra;
  let server: INestMicroservice;
  let rpc: RpcClient;
  let stranger: RpcClient;

  beforeAll(async () => {
    infra = await startTestInfra({ suite: 'rpc', database: false, nats: false });
    server = await NestFactory.createMicroservice(ResponderModule, {
      strategy: new PrefixedServerNats({ servers: [infra.natsUrl], queue: 'rpc-test' }, infra.prefix),
      logger: false,
    });
    await server.listen();
    rpc = new RpcClient({ url: infra.natsUrl, prefix: infra.prefix, name: 'rpc-test' });
    // Same subjects under another prefix: another suite's services, which must not answer.
    stranger = new RpcClient({ url: infra.natsUrl, prefix: `${infra.prefix}x`, name: 'rpc-test-stranger' });
  });

  afterAll(async () => {
    await rpc?.onApplicationShutdown();
    await stranger?.onApplicationShutdown();
    await server?.close();
    await infra?.stop();
  });

  it('resolves with the responder result', async () => {
    await expect(rpc.call(APPS_RPC.resolveConnection, { channel: 'whatsapp', waba_id: '1' })).resolves.toEqual({
      app_id: 7,
      user_id: 'u-1',
    });
  });

  it("rejects with the responder's own problem when it refuses", async () => {
    const problem = await rpcProblem(rpc.call(SUBSCRIPTIONS_RPC.get, { user_id: 'u-1', subscription_id: 's-1' }));
    expect(problem).toEqual(notFound);
  });

  it('maps a responder that fails unexpectedly to a 502 problem', async () => {
    const problem = await rpcProblem(rpc.call(SUBSCRIPTIONS_RPC.list, { user_id: 'u-1' }));
    expect(problem).toMatchObject({ status: 502, slug: 'bad-gateway' });
  });

  it('maps nobody answering to a 503 problem in the caller words', async () => {
    const problem = await rpcProblem(
      stranger.call(
        APPS_RPC.resolveConnection,
        { channel: 'whatsapp', waba_id: '1' },
        { timeoutMs: 300, unavailable: 'Apps are unavailable.' },
      ),
    );
    expect(problem).toEqual({
      status: 503,
      slug: 'service-unavailable',
      title: 'Service unavailable',
      detail: 'Apps are unavailable.',
    });
  });
});
