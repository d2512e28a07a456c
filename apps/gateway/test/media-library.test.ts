import { createHash } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { ApiFactory } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { createDataSource } from '@app/database';
import { gatewaySchema } from '../src/database/schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The caps of the suite: the library keeps at most the largest (WhatsApp's). */
const CAPS = { WHATSAPP_MEDIA_MAX_BYTES: '300000', TELEGRAM_MEDIA_MAX_BYTES: '100000', MAX_MEDIA_MAX_BYTES: '200000' };

/** A file of `size` bytes starting with `head`. */
const file = (head: number[] | string, size: number): Buffer => {
  const b = Buffer.alloc(size, 7);
  Buffer.from(typeof head === 'string' ? Buffer.from(head, 'latin1') : head).copy(b);
  return b;
};
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff, 0xe0];
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * The media library through the real gateway: a file uploaded as multipart or fetched from a URL
 * is kept with the type its bytes say, its size and SHA-256; the largest channel cap bounds it;
 * listed a page at a time, deleted, and another account's is 404.
 */
describe('media library: POST, GET and DELETE /v1/media', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let token: string;
  let otherToken: string;
  let files: Server;
  let filesUrl: string;
  const served = new Map<string, { body: Buffer; type: string }>();

  const upload = async (body: Buffer, type: string, name = 'photo.jpg', auth = token, field = 'file') => {
    const form = new FormData();
    form.append(field, new Blob([new Uint8Array(body)], { type }), name);
    const res = await fetch(`${platform.urls.gateway}/v1/media`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${auth}` },
      body: form,
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const call = async (method: string, path: string, body?: unknown, auth = token) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${auth}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
  };

  beforeAll(async () => {
    files = createServer((req, res) => {
      const f = served.get(req.url ?? '');
      if (!f) return void res.writeHead(404).end();
      res.writeHead(200, { 'Content-Type': f.type, 'Content-Length': String(f.body.length) }).end(f.body);
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    platform = await startPlatform({ suite: 'gw-media-library', services: ['gateway'], env: CAPS });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    const db = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await db.initialize();
    const accounts = new AccountsRepository(db);
    const user = await factory.user('system', { balance: 10 });
    token = (await accounts.createAccount('library-shop', user.userId)).token;
    otherToken = (await accounts.createAccount('library-other', user.userId)).token;
    await db.destroy();
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
    await new Promise((resolve) => files?.close(resolve));
  });

  it('keeps a multipart upload with the type its bytes say, correcting the declared one', async () => {
    const png = file(PNG, 5000);
    const res = await upload(png, 'image/jpeg', 'banner.jpg');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'image',
      mime_type: 'image/png',
      size: 5000,
      sha256: sha(png),
      file_name: 'banner.jpg',
      created_at: expect.any(Number),
    });
    const pdf = await upload(file('%PDF-1.7', 1200), 'application/octet-stream', 'terms.pdf');
    expect(pdf.body).toMatchObject({ type: 'document', mime_type: 'application/pdf', size: 1200 });
    const text = await upload(file('hello', 40), 'text/plain', 'notes.txt');
    expect(text.body).toMatchObject({ type: 'document', mime_type: 'text/plain' });
  });

  it('refuses bytes that are no known format of the declared image, video or audio type', async () => {
    const res = await upload(file('not an image at all', 500), 'image/png');
    expect(res.status).toBe(422);
    expect(res.body.type).toMatch(/\/problems\/media-type-refused$/);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'file' })]);
  });

  it('fetches a file from a URL and sniffs it', async () => {
    const jpeg = file(JPEG, 64_000);
    served.set('/a.jpg', { body: jpeg, type: 'application/octet-stream' });
    const res = await call('POST', '/v1/media', { url: `${filesUrl}/a.jpg`, file_name: 'a.jpg' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'image', mime_type: 'image/jpeg', size: 64_000, sha256: sha(jpeg) });
    const missing = await call('POST', '/v1/media', { url: `${filesUrl}/missing.jpg` });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'url' })]);
    const bad = await call('POST', '/v1/media', { url: 'ftp://files.example/a.jpg' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'url' })]);
  });

  it('caps a file at the largest channel cap: 413 for an upload, 422 for a URL', async () => {
    expect((await upload(file(JPEG, 300_000), 'image/jpeg')).status).toBe(201);
    const over = await upload(file(JPEG, 300_001), 'image/jpeg');
    expect(over.status).toBe(413);
    served.set('/big.jpg', { body: file(JPEG, 300_001), type: 'image/jpeg' });
    const far = await call('POST', '/v1/media', { url: `${filesUrl}/big.jpg` });
    expect(far.status).toBe(422);
    expect(far.body.type).toMatch(/\/problems\/media-too-large$/);
  });

  it('answers 400 without a file part and 415 for another body', async () => {
    const res = await upload(file(JPEG, 100), 'image/jpeg', 'x.jpg', token, 'photo');
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'file' })]);
    const plain = await fetch(`${platform.urls.gateway}/v1/media`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'image/jpeg' },
      body: new Uint8Array(file(JPEG, 100)),
    });
    expect(plain.status).toBe(415);
  });

  it("lists the account's files a page at a time, and deletes one; another account's is 404", async () => {
    const mine = await upload(file(PNG, 100), 'image/png', 'list.png');
    const theirs = await upload(file(PNG, 100), 'image/png', 'theirs.png', otherToken);
    const first = await call('GET', '/v1/media?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.data[0].id).toBe(mine.body.id);
    expect(first.body.next_cursor).toBe(first.body.data[1].id);
    const all: Json[] = [];
    for (let cursor: string | null = ''; cursor !== null;) {
      const page = await call('GET', `/v1/media?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      all.push(...(page.body.data as Json[]));
      cursor = page.body.next_cursor as string | null;
    }
    expect(all.map((m) => m.id)).not.toContain(theirs.body.id);
    expect(all.length).toBeGreaterThanOrEqual(6);
    expect((await call('DELETE', `/v1/media/${theirs.body.id}`)).status).toBe(404);
    expect((await call('DELETE', `/v1/media/${mine.body.id}`)).status).toBe(204);
    expect((await call('DELETE', `/v1/media/${mine.body.id}`)).status).toBe(404);
    const after = await call('GET', '/v1/media?limit=100');
    expect((after.body.data as Json[]).map((m) => m.id)).not.toContain(mine.body.id);
  });
});
