import { OutboundMessage, Topology } from '@app/contracts';
import { NatsClients, pullNoWait } from '@app/messaging';
import { ApiFactory, TestUser } from '../../../../test/support/factories';
import { Platform, startPlatform } from '../../../../test/support/platform';
import { AppEntity } from '../../src/wa-apps/app.entity';
import { client, HttpResult } from './http';

type Call = ReturnType<typeof client>;

/** The sending suite's world: the api alone, a funded system user, and an app whose window with `recipient` is open. */
export interface SendSuite {
  factory: ApiFactory;
  nats: NatsClients;
  topology: Topology;
  sys: TestUser;
  app: AppEntity;
  call: Call;
  /** POST /v1/wa/apps/{appId}/messages, by the system user from its app unless told otherwise. */
  send(
    body: unknown,
    opts?: { auth?: string; appId?: number | string; headers?: Record<string, string> },
  ): Promise<HttpResult>;
  /** Takes (and acks) everything queued on a priority stream for WhatsApp. */
  drain(priority: 'service' | 'marketing'): Promise<{ msgId?: string; body: OutboundMessage }[]>;
  stop(): Promise<void>;
}

export async function startSendSuite(suite: string, recipient: string): Promise<SendSuite> {
  const platform: Platform = await startPlatform({
    suite,
    services: ['api'],
    env: { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' },
  });
  try {
    return await sendSuiteOn(platform, suite, recipient);
  } catch (err) {
    await platform.stop();
    throw err;
  }
}

async function sendSuiteOn(platform: Platform, suite: string, recipient: string): Promise<SendSuite> {
  const topology = platform.infra.topology;
  const nats = await NatsClients.connect({ url: platform.infra.natsUrl, name: `${suite}-test` });
  const factory = await ApiFactory.connect(platform.infra.databaseUrl);
  const sys = await factory.user('system', { balance: 100 });
  const app = await factory.activeApp(sys.userId, { message_limit: 'TIER_UNLIMITED' });
  await factory.openConversation(app.id, recipient);
  const call = client(`${platform.urls.api}/api`);
  return {
    factory,
    nats,
    topology,
    sys,
    app,
    call,
    send: (body, opts = {}) =>
      call('POST', `/v1/wa/apps/${opts.appId ?? app.id}/messages`, {
        auth: opts.auth ?? sys.auth,
        body,
        headers: opts.headers,
      }),
    drain: async (priority) => {
      const pulled = await pullNoWait(
        nats.nc,
        topology.outboundStream(priority),
        topology.outboundConsumer(priority, 'whatsapp'),
        1000,
      );
      for (const m of pulled) await m.ack();
      return pulled.map((m) => ({ msgId: m.msgId, body: m.json<OutboundMessage>() }));
    },
    stop: async () => {
      await nats.drain();
      await factory.close();
      await platform.stop();
    },
  };
}
