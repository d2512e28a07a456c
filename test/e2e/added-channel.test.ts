import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@app/testing';
import type { AppEntity } from '../../apps/api/src/wa-apps/app.entity';
import { GatewayCall, gatewayAccount, gatewayClient, recipientsReport } from '../support/campaigns';
import { ApiFactory, TestUser } from '../support/factories';
import { Platform, startPlatform } from '../support/platform';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The channel module an operator would write for a fourth channel, "pigeon" (docs/channels.md#adding-a-channel):
 * its registration, the connector the queue delivers with and the bot access the gateway connects
 * bots with, each talking to the channel's HTTP API at PIGEON_API_URL. Written as plain JavaScript,
 * as a built module is, and loaded by every service through CHANNEL_MODULES.
 */
const PIGEON_MODULE = `
const { registerChannel } = require('@app/contracts');
const { pacingOf, registerBotAccessFactory, registerConnectorFactory } = require('@app/channels');

const PIGEON = {
  name: 'pigeon',
  kind: 'messenger',
  connection: 'bot',
  gatewaySends: true,
  receipts: false,
  pricing: 'channel_table',
  pacing: { settings: { rate: 'ratePerBot', campaignRate: 'campaignRate' } },
  addresses: [
    {
      kind: 'user_id',
      message: 'must be a pigeon user id (digits)',
      canonical: (value) => (/^[1-9][0-9]{0,18}$/.test(value.trim()) ? value.trim() : null),
      mask: (value) => value.slice(0, 2) + '*'.repeat(Math.max(0, value.length - 2)),
    },
  ],
  settings: {
    apiUrl: {
      env: 'PIGEON_API_URL',
      type: 'url',
      default: 'http://localhost:3900/pigeon',
      services: ['gateway', 'queue'],
      description: 'The pigeon API root',
    },
    ratePerBot: {
      env: 'QUEUE_PIGEON_RATE_PER_BOT',
      type: 'int',
      default: 20,
      min: 1,
      max: 1000,
      services: ['queue'],
      description: 'Messages per second per pigeon bot',
    },
    campaignRate: {
      env: 'CAMPAIGN_PACING_PIGEON',
      type: 'number',
      default: 20,
      min: 0.1,
      max: 1000,
      services: ['api'],
      description: 'Campaign messages per second per pigeon bot',
    },
  },
};

async function call(apiUrl, path, body) {
  const res = await fetch(apiUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
  return { status: res.status, body: await res.json().catch(() => ({})) };
}

registerChannel(PIGEON);

registerConnectorFactory(PIGEON, (settings, ctx) => ({
  channel: 'pigeon',
  pacing: { ratePerSender: 20, burst: 1, recipientIntervalMs: 0, ...pacingOf(PIGEON, settings) },
  sendTimeoutMs: 5000,
  async send(msg) {
    // Templates reach a bot channel rendered (its body with the values put in).
    const rendered = msg.content.template && msg.content.template.rendered;
    if (!rendered) {
      return { ok: false, retryable: false, scope: 'message', code: 'invalid_message', title: 'pigeon carries templates only' };
    }
    let answer;
    try {
      answer = await call(settings.apiUrl, '/messages', {
        token: ctx.openCredential(msg.sender.credential),
        to: msg.recipient,
        text: rendered.body,
      });
    } catch (err) {
      return { ok: false, retryable: true, scope: 'channel', outcomeUnknown: true, code: 'network_error', title: String(err) };
    }
    if (answer.status === 200 && answer.body.message_id) return { ok: true, provider_message_id: answer.body.message_id };
    if (answer.status >= 500) return { ok: false, retryable: true, scope: 'channel', code: 'http_' + answer.status, title: 'pigeon is down' };
    return { ok: false, retryable: false, scope: 'message', code: 'http_' + answer.status, title: String(answer.body.error) };
  },
}));

registerBotAccessFactory(PIGEON, (settings) => {
  const refused = (a) => ({ ok: false, status: a.status, reason: String(a.body.error) });
  return {
    async identify(token) {
      const a = await call(settings.apiUrl, '/bots/me', { token });
      return a.status === 200 ? { ok: true, id: String(a.body.id), username: a.body.username } : refused(a);
    },
    async register(token, url, secret) {
      const a = await call(settings.apiUrl, '/bots/webhook', { token, url, secret });
      return a.status === 200 ? { ok: true } : refused(a);
    },
    async unregister(token) {
      return { ok: (await call(settings.apiUrl, '/bots/webhook', { token, url: null })).status === 200 };
    },
    async acknowledge() {},
  };
});
`;

/** What the pigeon emulator received: each message as sent, with the id it answered. */
interface PigeonMessage {
  token: string;
  to: string;
  text: string;
  message_id: string;
}

/** The channel's HTTP API, emulated: one bot, whose token it confirms; it accepts every message. */
class PigeonEmulator {
  readonly messages: PigeonMessage[] = [];
  readonly webhooks: { token: string; url: string | null }[] = [];
  private server?: Server;
  static readonly TOKEN = 'pigeon-bot-1:secret';

  async open(): Promise<string> {
    this.server = createServer((req, res) => {
      void this.answer(req).then(([status, body]) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/pigeon`;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  sentTo(to: string): PigeonMessage[] {
    return this.messages.filter((m) => m.to === to);
  }

  private async answer(req: IncomingMessage): Promise<[number, Json]> {
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    const body = JSON.parse(raw || '{}') as Json;
    if (body.token !== PigeonEmulator.TOKEN) return [401, { error: 'unknown bot token' }];
    switch (req.url) {
      case '/pigeon/bots/me':
        return [200, { id: 7001, username: 'shop_pigeon_bot' }];
      case '/pigeon/bots/webhook':
        this.webhooks.push({ token: body.token as string, url: body.url as string | null });
        return [200, {}];
      case '/pigeon/messages': {
        const message_id = `pm-${this.messages.length + 1}`;
        this.messages.push({
          token: body.token as string,
          to: body.to as string,
          text: body.text as string,
          message_id,
        });
        return [200, { message_id }];
      }
      default:
        return [404, { error: 'no such method' }];
    }
  }
}

const PIGEON_PRICE = 0.02;
const prices = (p: number) =>
  Object.fromEntries(['MARKETING', 'MARKETING_LITE', 'UTILITY', 'SERVICE', 'AUTHENTICATION'].map((c) => [c, p]));

/**
 * A channel joins by its module alone: "pigeon" exists only in this file, registered through
 * CHANNEL_MODULES, and is connected, addressed on contacts, sent to, priced, opted out of and
 * reached by a campaign through the real services, like a built-in channel.
 */
describe('a channel added by registration', () => {
  const emulator = new PigeonEmulator();
  let moduleDir: string;
  let platform: Platform;
  let factory: ApiFactory;
  let user: TestUser;
  let app: AppEntity;
  let gateway: GatewayCall;

  const balance = async () => {
    const res = await fetch(`${platform.urls.api}/api/v1/users/${user.userId}/balances`, {
      headers: { authorization: user.auth },
    });
    return ((await res.json()) as Json).balance as number;
  };
  const contact = async (externalId: string, userId: string, lists: string[] = []) => {
    const res = await gateway('POST', '/v1/contacts', {
      external_id: externalId,
      name: externalId,
      addresses: [{ channel: 'pigeon', kind: 'user_id', value: userId }],
      lists,
    });
    expect(res.status).toBe(201);
    return res.body;
  };
  const send = (contactRef: string) =>
    gateway('POST', '/v1/messages', { contact: contactRef, channels: ['pigeon'], template: 'promo', params: ['Ann'] });

  beforeAll(async () => {
    const apiUrl = await emulator.open();
    moduleDir = mkdtempSync(join(tmpdir(), 'pigeon-channel-'));
    const modulePath = join(moduleDir, 'pigeon-channel.js');
    writeFileSync(modulePath, PIGEON_MODULE);
    platform = await startPlatform({
      suite: 'e2e-added-channel',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      env: {
        CHANNEL_MODULES: modulePath,
        PIGEON_API_URL: apiUrl,
        CHANNEL_MESSAGE_PRICES: JSON.stringify({
          telegram: prices(0.01),
          max: prices(0),
          pigeon: prices(PIGEON_PRICE),
        }),
        SETTLEMENT_INTERVAL_MS: '500',
        CAMPAIGN_TICK_MS: '100',
      },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    user = await factory.user('system', { balance: 10 });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_UNLIMITED' });
    await factory.sendableTemplate(app.id, { name: 'promo', category: 'MARKETING', body: 'Hello {{1}}' });
    gateway = gatewayClient(
      platform.urls.gateway,
      await gatewayAccount(platform.infra.databaseUrl, 'birds', user.userId),
    );
    // The template source, as for every gateway send.
    expect((await gateway('POST', '/v1/connections', { channel: 'whatsapp', app_id: app.id })).status).toBe(201);
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
    await emulator.close();
    if (moduleDir) rmSync(moduleDir, { recursive: true, force: true });
  });

  it('connects a pigeon bot whose token the channel confirms, and refuses one it does not', async () => {
    const refused = await gateway('POST', '/v1/connections', { channel: 'pigeon', bot_token: 'pigeon-bot-2:wrong' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ type: '/problems/channel-refused' });

    const connected = await gateway('POST', '/v1/connections', { channel: 'pigeon', bot_token: PigeonEmulator.TOKEN });
    expect(connected.status).toBe(201);
    expect(connected.body).toMatchObject({ channel: 'pigeon', state: 'active' });
    expect(emulator.webhooks).toEqual([
      { token: PigeonEmulator.TOKEN, url: `${platform.urls.gateway}/v1/inbound/pigeon/${connected.body.id}` },
    ]);
  });

  it('keeps a pigeon address on a contact and refuses one the channel would not read', async () => {
    const ann = await contact('ann', '1001');
    expect(ann.addresses).toEqual([{ channel: 'pigeon', kind: 'user_id', value: '1001' }]);
    const bad = await gateway('POST', '/v1/contacts', {
      external_id: 'nobody',
      addresses: [{ channel: 'pigeon', kind: 'user_id', value: '@ann' }],
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('must be a pigeon user id (digits)');
  });

  it('delivers a send to the contact on pigeon, ends it at SENT and charges the registered price', async () => {
    const before = await balance();
    const sent = await send('ext:ann');
    expect(sent.status).toBe(202);
    const report = await waitFor(
      async () => {
        const r = await gateway('GET', `/v1/messages/${sent.body.id}`);
        return r.body.status === 'SENT' ? r.body : false;
      },
      30_000,
      'the pigeon message SENT',
      100,
    );
    expect(report).toMatchObject({ channel: 'pigeon', status: 'SENT' });
    expect(emulator.sentTo('1001')).toEqual([
      { token: PigeonEmulator.TOKEN, to: '1001', text: 'Hello Ann', message_id: expect.stringMatching(/^pm-/) },
    ]);
    // Receiptless and priced by its own table: charged once, when sent.
    let seen: number | undefined;
    await waitFor(
      async () => Math.abs((seen = await balance()) - (before - PIGEON_PRICE)) < 1e-9,
      30_000,
      `one charge of ${PIGEON_PRICE}`,
    ).catch((err: Error) => {
      throw new Error(`${err.message} (balance before ${before}, last seen ${seen})`);
    });
  });

  it("an opt-out of the contact's pigeon address refuses the next marketing send, nothing sent or held", async () => {
    const set = await gateway('PUT', '/v1/contacts/ext:ann/consent', {
      channel: 'pigeon',
      purpose: 'marketing',
      state: 'opted_out',
    });
    expect(set.status).toBe(200);
    expect(set.body.states).toContainEqual(
      expect.objectContaining({ channel: 'pigeon', address: '1001', purpose: 'marketing', state: 'opted_out' }),
    );
    const before = await balance();
    const refused = await send('ext:ann');
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      type: '/problems/recipient-opted-out',
      channel: 'pigeon',
      purpose: 'marketing',
    });
    expect(await balance()).toBe(before);
    expect(emulator.sentTo('1001')).toHaveLength(1);
  });

  it('a campaign to a list reaches exactly its consented pigeon recipients, each once', async () => {
    await gateway('PATCH', '/v1/contacts/ext:ann', { lists: ['flock'] });
    await contact('bob', '1002', ['flock']);
    await contact('cid', '1003', ['flock']);
    const created = await gateway('POST', '/v1/campaigns', {
      name: 'Pigeon post',
      template: 'promo',
      language: 'en',
      params: ['{{contact.name}}'],
      audience: { list: 'flock' },
      channels: ['pigeon'],
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await gateway('POST', `/v1/campaigns/${id}/launch`)).status).toBe(200);
    const done = await waitFor(
      async () => {
        const c = await gateway('GET', `/v1/campaigns/${id}`);
        return c.body.state === 'completed' ? c.body : false;
      },
      60_000,
      'the campaign completed',
      100,
    );
    expect(done.channels_used).toEqual({ pigeon: 2 });
    await waitFor(() => emulator.messages.length >= 3, 10_000, 'both consented recipients reached');
    expect(emulator.messages.map((m) => [m.to, m.text]).sort()).toEqual([
      ['1001', 'Hello Ann'],
      ['1002', 'Hello bob'],
      ['1003', 'Hello cid'],
    ]);
    const report = await recipientsReport(gateway, id);
    expect(report.filter((r) => r.message_id).length).toBe(2);
  });
});
