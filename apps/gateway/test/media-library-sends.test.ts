import { waitFor } from '@app/testing';
import { createDataSource } from '@app/database';
import { DataSource } from 'typeorm';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { registerSandboxNumber, sandboxControl } from '../../../test/support/sandbox';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { gatewaySchema } from '../src/database/schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A JPEG of `size` bytes (its magic number, then filler). */
const jpeg = (size: number) => {
  const b = Buffer.alloc(size, 1);
  Buffer.from([0xff, 0xd8, 0xff, 0xe0]).copy(b);
  return b;
};

/**
 * Sends by `media_id` through every service: the first send of a media library file on a channel
 * connection uploads it once (the sandbox counts each channel's uploads), later sends reuse the
 * handle, a handle the channel no longer knows is uploaded again; another account's or an unknown
 * media_id, a file past a channel's cap, and url with media_id are refused before any hold.
 */
describe('media library sends: media_id on every channel, uploaded once', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let gatewayDb: DataSource;
  let user: TestUser;
  let token: string;
  let otherToken: string;
  let app: Awaited<ReturnType<ApiFactory['activeApp']>>;
  const bots: Record<'telegram' | 'max', { id: number; token: string }> = {} as never;
  const customer = '5511987650101';

  const call = async (path: string, auth: string, body?: unknown) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        Authorization: `Bearer ${auth}`,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
  };
  const upload = async (body: Buffer, auth = token) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(body)], { type: 'image/jpeg' }), 'banner.jpg');
    const res = await fetch(`${platform.urls.gateway}/v1/media`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${auth}` },
      body: form,
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as Json).id as string;
  };
  const sandbox = async (path: string, body?: unknown) =>
    (await sandboxControl<Json & Json[]>(platform.urls.sandbox, path, body)).body;
  const uploads = () => sandbox('media/uploads') as Promise<Record<string, number>>;
  const holds = async () =>
    (
      (await factory.dataSource.query(`SELECT count(*)::int AS n FROM holds WHERE user_id = $1`, [user.userId])) as {
        n: number;
      }[]
    )[0].n;
  const sent = (id: string) =>
    waitFor(
      async () => {
        const res = await call(`/v1/messages/${id}`, token);
        return ['SENT', 'DELIVERED', 'READ', 'FAILED'].includes(res.body?.status) ? res.body : false;
      },
      30_000,
      `message ${id} sent`,
      100,
    );
  const send = (channel: string, to: string, mediaId: string, caption = 'Hi') =>
    call('/v1/messages', token, { channel, to, content: { type: 'image', media_id: mediaId, caption } });
  const handleOf = async (mediaId: string, channel: string) =>
    (
      (await gatewayDb.query(`SELECT handle FROM media_channel_handles WHERE media_id = $1 AND channel = $2`, [
        mediaId,
        channel,
      ])) as { handle: string | null }[]
    )[0]?.handle ?? null;
  const botSends = async (channel: 'telegram' | 'max') =>
    ((await sandbox(`${channel}/calls?bot_id=${bots[channel].id}`)) as unknown as Json[]).filter((c) =>
      /^(sendPhoto|messages)$/.test(c.method),
    );

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'gw-media-sends',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      env: { SANDBOX_STATUS_DELAY_MS: '50', TELEGRAM_MEDIA_MAX_BYTES: '100000' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
    await gatewayDb.initialize();
    const accounts = new AccountsRepository(gatewayDb);
    user = await factory.user('system', { balance: 10 });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    token = (await accounts.createAccount('media shop', user.userId)).token;
    otherToken = (await accounts.createAccount('media other', user.userId)).token;
    expect((await call('/v1/connections', token, { channel: 'whatsapp', app_id: app.id })).status).toBe(201);
    for (const channel of ['telegram', 'max'] as const) {
      bots[channel] = (await sandbox(`${channel}/bots`, {})) as unknown as { id: number; token: string };
      expect((await call('/v1/connections', token, { channel, bot_token: bots[channel].token })).status).toBe(201);
    }
    // WhatsApp's customer-service window: the customer writes first.
    await sandbox('whatsapp/inbound', { phone_number_id: app.phoneNumberId, from: customer, text: 'Hello' });
  });

  afterAll(async () => {
    await gatewayDb?.destroy();
    await factory?.close();
    await platform?.stop();
  });

  it('sends an image by media_id on each channel, uploading it once per channel', async () => {
    const mediaId = await upload(jpeg(20_000));
    const tg = await send('telegram', '424242', mediaId);
    expect(tg.status).toBe(202);
    expect(tg.body.rendered_as).toBe('image');
    expect((await sent(tg.body.id)).status).not.toBe('FAILED');
    const mx = await send('max', '515151', mediaId);
    expect(mx.status).toBe(202);
    expect((await sent(mx.body.id)).status).not.toBe('FAILED');
    const wa = await waitFor(
      async () => {
        const res = await send('whatsapp', customer, mediaId);
        return res.status === 202 ? res : false;
      },
      20_000,
      'the WhatsApp window open',
      250,
    );
    expect((await sent(wa.body.id)).status).not.toBe('FAILED');
    expect(await uploads()).toEqual({ whatsapp: 1, telegram: 1, max: 1 });

    // What each emulator received: the file by the handle its upload gave.
    const waHandle = await handleOf(mediaId, 'whatsapp');
    expect(waHandle).toMatch(/^wamedia\./);
    const waSent = ((await sandbox(`whatsapp/messages?phone_number_id=${app.phoneNumberId}`)) as unknown as Json[])
      .map((m) => m.body)
      .filter((b) => b.type === 'image');
    expect(waSent).toEqual([expect.objectContaining({ to: customer, image: { id: waHandle, caption: 'Hi' } })]);
    expect(await handleOf(mediaId, 'telegram')).toMatch(/^tgfile-/);
    expect(await handleOf(mediaId, 'max')).toEqual(expect.any(String));

    // Sent again (several at once): the handles are reused, nothing is uploaded again.
    const again = await Promise.all([
      send('telegram', '424243', mediaId),
      send('telegram', '424244', mediaId),
      send('max', '515152', mediaId),
      send('whatsapp', customer, mediaId),
    ]);
    for (const res of again) {
      expect(res.status).toBe(202);
      expect((await sent(res.body.id)).status).not.toBe('FAILED');
    }
    expect(await uploads()).toEqual({ whatsapp: 1, telegram: 1, max: 1 });
    const tgSends = await botSends('telegram');
    expect(tgSends.slice(-2).map((c) => c.params.photo)).toEqual([
      await handleOf(mediaId, 'telegram'),
      await handleOf(mediaId, 'telegram'),
    ]);
  });

  it('uploads once when the first sends on a connection go together', async () => {
    const before = await uploads();
    const mediaId = await upload(jpeg(30_000));
    const first = await Promise.all(
      ['30001', '30002', '30003', '30004', '30005'].map((to) => send('max', to, mediaId)),
    );
    for (const res of first) expect((await sent(res.body.id)).status).not.toBe('FAILED');
    expect((await uploads()).max).toBe(before.max + 1);
  });

  it('uploads again a handle the channel no longer knows, and sends', async () => {
    const mediaId = await upload(jpeg(10_000));
    const first = await send('whatsapp', customer, mediaId);
    expect((await sent(first.body.id)).status).not.toBe('FAILED');
    const old = await handleOf(mediaId, 'whatsapp');
    const before = await uploads();
    // The channel lets it expire; the gateway's copy is past its time too.
    await sandbox('media/expire', { handle: old });
    await gatewayDb.query(
      `UPDATE media_channel_handles SET expires_at = now() - interval '1 second' WHERE media_id = $1`,
      [mediaId],
    );
    const next = await send('whatsapp', customer, mediaId);
    expect((await sent(next.body.id)).status).not.toBe('FAILED');
    expect((await uploads()).whatsapp).toBe(before.whatsapp + 1);
    const renewed = await handleOf(mediaId, 'whatsapp');
    expect(renewed).not.toBe(old);
  });

  it("refuses another account's or an unknown media_id, a file past the channel's cap, and url with media_id, holding nothing", async () => {
    const theirs = await upload(jpeg(1000), otherToken);
    const big = await upload(jpeg(150_000));
    const before = await holds();
    const other = await send('telegram', '424242', theirs);
    expect(other.status).toBe(422);
    expect(other.body.errors).toEqual([expect.objectContaining({ field: 'content.media_id' })]);
    const unknown = await send('telegram', '424242', '0190a000-0000-7000-8000-0000000000ff');
    expect(unknown.status).toBe(422);
    const tooBig = await send('telegram', '424242', big);
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.detail).toMatch(/telegram/);
    expect((await send('max', '515151', big)).status).toBe(202);
    const both = await call('/v1/messages', token, {
      channel: 'telegram',
      to: '424242',
      content: { type: 'image', media_id: big, url: 'https://cdn.example.com/a.jpg' },
    });
    expect(both.status).toBe(400);
    expect(both.body.errors).toEqual([expect.objectContaining({ field: 'content.media_id' })]);
    const neither = await call('/v1/messages', token, {
      channel: 'telegram',
      to: '424242',
      content: { type: 'image' },
    });
    expect(neither.status).toBe(400);
    expect(neither.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'content.url' })]));
    const asVideo = await call('/v1/messages', token, {
      channel: 'telegram',
      to: '424242',
      content: { type: 'video', media_id: big },
    });
    expect(asVideo.status).toBe(422);
    expect(await holds()).toBe(before + 1);
  });
});
