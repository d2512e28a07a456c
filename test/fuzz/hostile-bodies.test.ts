import { createDataSource } from '@app/database';
import { waitFor } from '@app/testing';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { gatewaySchema } from '../../apps/gateway/src/database/schema';
import { CompiledPlatform, startCompiledPlatform } from '../support/compiled-platform';
import { ApiFactory } from '../support/factories';
import { ServiceName } from '../support/platform-env';

/**
 * Bodies built to exhaust a service's heap, sent several at once to every HTTP service running as
 * deployed: compiled, each its own process with the production heap (SERVICE_NODE_FLAGS), so that
 * a regression really crashes it. One body nested 1,500,000 levels took the gateway down, six 1 MB
 * bodies of nested arrays any service, and 16 dense bodies under the limit the gateway at 144 and
 * 192 MiB, while the keep-alive timer of each client's connection kept its last body (6 MiB
 * parsed) after the answer. Each must be answered with a 4xx problem (or, for bodies the process
 * has no room for at that moment, 503 with Retry-After), and every process must still serve
 * afterwards.
 */

const SERVICES: ServiceName[] = ['sandbox', 'webhooks', 'gateway', 'queue', 'api'];
/** Just under the 1 MiB the services took before, so that the code before the limits parsed it. */
const ONE_MB = 1_000_000;
const THREE_MB = 3_000_000;
const AT_ONCE = 6;

/** `{"x":[[[[…]]]]}` of `size` bytes, as the attack sent it: nested (size - 6) / 2 levels. */
const nested = (size: number) => {
  const depth = Math.floor((size - 6) / 2);
  return `{"x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
};
/** Shallow but dense: `[[[[[[[[[[]]]]]]]]]],…` (11 levels), 26 bytes of heap per byte once parsed. */
const dense = (size: number) => {
  const unit = '[[[[[[[[[[]]]]]]]]]]';
  return `[${Array(Math.floor((size - 2) / (unit.length + 1)))
    .fill(unit)
    .join(',')}]`;
};

interface Answer {
  status: number;
  type: string;
  retryAfter: string | null;
}

describe('hostile bodies never take a service down', () => {
  let platform: CompiledPlatform;
  let urls: Record<ServiceName, string>;
  let systemAuth = '';
  let accountAuth = '';

  beforeAll(async () => {
    platform = await startCompiledPlatform({
      suite: 'hostile-bodies',
      services: SERVICES,
      env: { LOG_LEVEL: 'info', NODE_ENV: 'test' },
    });
    urls = platform.urls;
    const factory = await ApiFactory.connect(platform.infra.databaseUrl);
    systemAuth = (await factory.user('system', { balance: 10 })).auth;
    await factory.close();
    const gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await gatewayDb.initialize();
    accountAuth = `Bearer ${(await new AccountsRepository(gatewayDb).createAccount('hostile', null)).token}`;
    await gatewayDb.destroy();
  }, 240_000);

  afterAll(async () => {
    await platform?.stop();
  });

  /**
   * POSTs and reads the answer. A service refuses a body over its route's limit by its
   * Content-Length and closes the connection before the upload ends, so the client may see only
   * the reset (EPIPE): that counts as a refusal for such bodies alone.
   */
  const post = async (url: string, body: string, headers: Record<string, string>, limit: number): Promise<Answer> => {
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    } catch (err) {
      if (Buffer.byteLength(body) > limit)
        return { status: 413, type: '/problems/closed-before-the-upload-ended', retryAfter: null };
      throw err;
    }
    const text = await res.text();
    let type = res.headers.get('content-type') ?? '';
    if (type.startsWith('application/problem+json')) type = (JSON.parse(text) as { type: string }).type;
    return { status: res.status, type, retryAfter: res.headers.get('retry-after') };
  };

  /**
   * A refusal as the platform answers one: a 4xx problem, or 503 with Retry-After when the process
   * has no room now. The sandbox's Graph routes answer in Graph's own error format, as Meta does.
   */
  const expectRefused = (answers: Answer[], label: string) => {
    for (const a of answers) {
      const refused = (a.status >= 400 && a.status < 500) || (a.status === 503 && a.retryAfter !== null);
      expect({ label, ...a, refused }).toMatchObject({
        label,
        refused: true,
        type: label.startsWith('sandbox Graph') ? expect.any(String) : expect.stringMatching(/^\/problems\//),
      });
    }
  };

  /** Each service's routes: one without authentication, one with a valid credential (where it has one). */
  const targets = (): { label: string; url: string; headers: Record<string, string>; limit?: number }[] => [
    { label: 'api, no token', url: `${urls.api}/api/v1/wa/apps`, headers: {} },
    { label: 'api, system token', url: `${urls.api}/api/v1/wa/apps`, headers: { authorization: systemAuth } },
    {
      label: 'gateway WhatsApp webhook, bad signature',
      url: `${urls.gateway}/v1/inbound/whatsapp`,
      headers: { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
      limit: 3 * 1024 * 1024,
    },
    { label: 'gateway send, no token', url: `${urls.gateway}/v1/messages`, headers: {} },
    {
      label: 'gateway send, account token',
      url: `${urls.gateway}/v1/messages`,
      headers: { authorization: accountAuth },
    },
    {
      label: 'gateway send, unknown token',
      url: `${urls.gateway}/v1/messages`,
      headers: { authorization: `Bearer ${'x'.repeat(43)}` },
    },
    {
      label: 'gateway course event',
      url: `${urls.gateway}/v1/course/events/00000000-0000-4000-8000-000000000000`,
      headers: {},
      limit: 64 * 1024,
    },
    {
      label: 'gateway bot update',
      url: `${urls.gateway}/v1/inbound/telegram/00000000-0000-4000-8000-000000000000`,
      headers: {},
    },
    { label: 'sandbox Graph send, no token', url: `${urls.sandbox}/v21.0/106540352242922/messages`, headers: {} },
    {
      label: 'sandbox Graph send, access token',
      url: `${urls.sandbox}/v21.0/106540352242922/messages`,
      headers: { authorization: 'Bearer sandbox-access-token' },
    },
    { label: 'sandbox control', url: `${urls.sandbox}/_sandbox/whatsapp/inbound`, headers: {} },
    // The queue and the webhooks service take no body on their public port: whatever is posted is a 404.
    { label: 'webhooks', url: `${urls.webhooks}/v1/anything`, headers: {} },
    { label: 'queue', url: `${urls.queue}/v1/anything`, headers: {} },
  ];

  it.each([
    ['1 MB nested 500,000 levels', () => nested(ONE_MB)],
    ['3 MB nested 1,500,000 levels', () => nested(THREE_MB)],
    ['1 MB of shallow nested arrays', () => dense(ONE_MB)],
    ['3 MB of shallow nested arrays', () => dense(THREE_MB)],
  ])(`%s, ${AT_ONCE} at once to every service: each refused, every service still serving`, async (_name, make) => {
    const body = make();
    for (const t of targets()) {
      expectRefused(
        await Promise.all(Array.from({ length: AT_ONCE }, () => post(t.url, body, t.headers, t.limit ?? 256 * 1024))),
        t.label,
      );
    }
    await platform.expectAllServing();
  });

  // Each service parses one such body at a time (each costs more than the body budget) and makes
  // the rest wait up to 2 s: 13 routes took over a minute on a busy machine.
  it('bodies under the 256 KiB limit but dense, many at once: refused or held back, never a crash', async () => {
    const body = dense(250 * 1024);
    for (const t of targets()) {
      expectRefused(
        await Promise.all(Array.from({ length: 16 }, () => post(t.url, body, t.headers, t.limit ?? 256 * 1024))),
        t.label,
      );
    }
    await platform.expectAllServing();
  }, 180_000);

  it("the gateway's access log never holds a pixel's token", async () => {
    const token = `${'Q'.repeat(40)}-pixel-token-secret`;
    expect((await fetch(`${urls.gateway}/v1/course/pixel/${token}.gif`)).status).toBe(200);
    await waitFor(() => platform.log('gateway').includes('/v1/course/pixel/{token}.gif'), 5_000, 'the pixel logged');
    expect(platform.log('gateway')).not.toContain(token);
  });
});
