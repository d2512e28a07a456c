import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { DataSource } from 'typeorm';
import { sandboxMediaChunk } from '@app/contracts';
import { createDataSource } from '@app/database';
import { Clock } from '@app/server';
import { waitFor } from '@app/testing';
import { ApiFactory } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { registerSandboxNumber, sandboxControl } from '../../../test/support/sandbox';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { GatewayConfig } from '../src/config';
import { gatewaySchema } from '../src/database/schema';
import { MediaLinks } from '../src/media/media-links';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MEDIA_LINK_SECRET = 'inbound-media-test-secret';

/** SHA-256 of a stream, read chunk by chunk. */
async function sha256(
  stream: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): Promise<{ hash: string; bytes: number }> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const chunk of stream) {
    h.update(chunk);
    bytes += chunk.length;
  }
  return { hash: h.digest('hex'), bytes };
}

/** The file the sandbox serves for a media handle of `size` bytes, made 64 KiB at a time. */
function* sandboxFile(size: number): Generator<Uint8Array> {
  for (let offset = 0; offset < size; offset += 65_536)
    yield sandboxMediaChunk(offset, Math.min(65_536, size - offset));
}

/**
 * Inbound media through the real gateway and sandbox: a customer's file on each channel is fetched
 * into the media store and downloads by its message's signed link, byte for byte (a 16 MB WhatsApp
 * document too); a file past its channel's cap is `too_large`; an expired, altered or another
 * account's link is 403; another account cannot read the message.
 */
describe('inbound media: fetched, stored, served by signed links', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let gatewayDb: DataSource;
  let token: string;
  let otherToken: string;
  let otherAccountId: string;
  let app: Awaited<ReturnType<ApiFactory['activeApp']>>;
  const bots: Record<'telegram' | 'max', { id: number; token: string }> = {} as never;

  const call = async (path: string, auth = token) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, { headers: { Authorization: `Bearer ${auth}` } });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
  };
  const sandbox = async (path: string, body?: unknown) =>
    (await sandboxControl<Json>(platform.urls.sandbox, path, body)).body;
  /** The inbound message of `channel` from `address` once its media is no longer pending. */
  const settledMedia = (channel: string, address: string) =>
    waitFor(
      async () => {
        const list = await call(`/v1/conversations?channel=${channel}&limit=100`);
        const conversation = (list.body.data as Json[]).find((c) => c.contact.address === address);
        if (!conversation) return false;
        const page = await call(`/v1/conversations/${conversation.id}/messages?limit=100`);
        const m = (page.body.data as Json[]).find((x) => x.media);
        return m && m.media.status !== 'pending' ? { conversation, message: m } : false;
      },
      60_000,
      `the media of the ${channel} message from ${address}`,
      200,
    );
  const expectBytes = async (url: string, size: number, mime: string) => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(mime);
    expect(res.headers.get('content-length')).toBe(String(size));
    expect(res.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const got = await sha256(Readable.fromWeb(res.body as unknown as WebReadableStream<Uint8Array>));
    expect(got).toEqual(await sha256(sandboxFile(size)));
  };

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'gw-inbound-media',
      services: ['sandbox', 'api', 'gateway'],
      env: { MEDIA_LINK_SECRET },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
    await gatewayDb.initialize();
    const accounts = new AccountsRepository(gatewayDb);
    const user = await factory.user('system', { balance: 10 });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    token = (await accounts.createAccount('media-shop', user.userId)).token;
    const other = await accounts.createAccount('media-other', user.userId);
    otherToken = other.token;
    otherAccountId = other.account.id;
    const connect = await fetch(`${platform.urls.gateway}/v1/connections`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ channel: 'whatsapp', app_id: app.id }),
    });
    expect(connect.status).toBe(201);
    for (const channel of ['telegram', 'max'] as const) {
      bots[channel] = (await sandbox(`${channel}/bots`, {})) as { id: number; token: string };
      const res = await fetch(`${platform.urls.gateway}/v1/connections`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ channel, bot_token: bots[channel].token }),
      });
      expect(res.status).toBe(201);
    }
  });

  afterAll(async () => {
    await gatewayDb?.destroy();
    await factory?.close();
    await platform?.stop();
  });

  it('stores an image on each channel and serves it by its link, byte for byte', async () => {
    await sandbox('whatsapp/inbound', { phone_number_id: app.phoneNumberId, from: '79990008001', kind: 'image' });
    await sandbox('telegram/inbound', { bot: bots.telegram.token, from: '8002', kind: 'image' });
    await sandbox('max/inbound', { bot: bots.max.token, from: '8003', kind: 'image' });
    for (const [channel, address] of [
      ['whatsapp', '79990008001'],
      ['telegram', '8002'],
      ['max', '8003'],
    ]) {
      const { message } = await settledMedia(channel, address);
      expect(message.media).toMatchObject({ status: 'stored', size: 4096, url: expect.any(String) });
      expect(message.media.expires_at).toBeGreaterThan(Math.floor(Date.now() / 1000));
      await expectBytes(message.media.url, 4096, message.media.mime_type ?? 'application/octet-stream');
    }
  });

  it('downloads a 16 MB WhatsApp document byte for byte', async () => {
    const size = 16 * 1024 * 1024;
    await sandbox('whatsapp/inbound', {
      phone_number_id: app.phoneNumberId,
      from: '79990008004',
      kind: 'document',
      media_size: size,
    });
    const { message } = await settledMedia('whatsapp', '79990008004');
    expect(message.media).toMatchObject({
      status: 'stored',
      size,
      mime_type: 'application/pdf',
      file_name: 'file.pdf',
    });
    await expectBytes(message.media.url, size, 'application/pdf');
  });

  it('keeps nothing of a file past the channel cap: too_large, no link', async () => {
    await sandbox('telegram/inbound', {
      bot: bots.telegram.token,
      from: '8005',
      kind: 'document',
      media_size: 21 * 1024 * 1024,
    });
    const { message } = await settledMedia('telegram', '8005');
    expect(message.media).toMatchObject({ status: 'too_large', url: null, expires_at: null });
  });

  it('refuses an expired, altered or another account’s link with 403, and the message to another account', async () => {
    const { conversation, message } = await settledMedia('whatsapp', '79990008001');
    const url = new URL(message.media.url as string);
    const problem = async (u: URL | string) => {
      const res = await fetch(u);
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      return (await res.json()) as Json;
    };
    // Altered: the signature, the expiry, or another message's id.
    const badSig = new URL(url);
    badSig.searchParams.set(
      'sig',
      (url.searchParams.get('sig') ?? '').replace(/^./, (c) => (c === '0' ? '1' : '0')),
    );
    expect((await problem(badSig)).type).toMatch(/\/problems\/media-link-invalid$/);
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    await problem(later);
    await problem(`${platform.urls.gateway}/v1/media/${message.id}`);
    // Signed with the secret, but expired; and signed for another account.
    const config = Object.assign(new GatewayConfig(), {
      MEDIA_LINK_SECRET,
      MEDIA_LINK_TTL_S: 60,
      GATEWAY_PUBLIC_URL: platform.urls.gateway,
    });
    const past = new MediaLinks(config, { nowSeconds: () => Math.floor(Date.now() / 1000) - 3600 } as Clock);
    const accountId = (
      (await gatewayDb.query(`SELECT account_id FROM inbound_media WHERE message_id = $1`, [message.id])) as {
        account_id: string;
      }[]
    )[0].account_id;
    expect((await problem(past.sign(accountId, message.id).url)).detail).toMatch(/expired/);
    const now = new MediaLinks(config, { nowSeconds: () => Math.floor(Date.now() / 1000) } as Clock);
    await problem(now.sign(otherAccountId, message.id).url);
    expect((await fetch(now.sign(accountId, message.id).url)).status).toBe(200);
    // Another account does not see the conversation, so gets no link.
    expect((await call(`/v1/conversations/${conversation.id}/messages`, otherToken)).status).toBe(404);
  });
});
