import fc from 'fast-check';
import { hubSignature } from '@app/channels';
import { createDataSource } from '@app/database';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { gatewaySchema } from '../../apps/gateway/src/database/schema';
import { ApiFactory, TestUser } from '../support/factories';
import { Platform, startPlatform } from '../support/platform';
import {
  bodyArbitrary,
  hostileString,
  hostileValue,
  OpenApiDocument,
  Operation,
  segmentArbitrary,
} from './support/openapi-arbitraries';
import { check } from './support/answer-rules';

/**
 * Property-based fuzzing of every operation of the api and of the gateway (each driven by its
 * OpenAPI document), and of the gateway's channel callbacks and send: whatever the request, the
 * answer is a success or a 4xx problem+json with a documented status, never a 5xx; a refused
 * request is answered within 1 s and in under 1 MiB; every service stays ready.
 */

/** Requests per operation: enough to reach every check of an operation, within the suite's minute. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 50);
/** Room for FUZZ_RUNS raised by hand to hunt for more. */
const TIMEOUT_MS = Math.max(60_000, RUNS * 2_000);
describe('HTTP fuzzing: bad input never costs a 5xx, a slow or huge answer, or readiness', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let sys: TestUser;
  let realUser: TestUser;
  let doc: OpenApiDocument;
  const valid: Record<string, string> = {};
  let accountToken = '';
  let gatewayTemplate = '';
  let gatewayConnectionId = '';

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'http-fuzz',
      services: ['api', 'gateway', 'sandbox', 'webhooks'],
      // The rate limit would answer most requests 429 before they reach anything worth fuzzing.
      env: { RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', TEMPLATE_SYNC_INTERVAL_MS: '0' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system', { balance: 100 });
    realUser = await factory.user('user');
    const api = `${platform.urls.api}/api`;
    doc = (await (await fetch(`${platform.urls.api}/api/openapi.json`)).json()) as OpenApiDocument;

    // Real identifiers, so that requests also get past the lookups to the rules behind them.
    const app = await factory.activeApp(sys.userId);
    const template = await factory.sendableTemplate(app.id);
    const created = await fetch(`${api}/v1/wa/apps`, {
      method: 'POST',
      headers: { authorization: sys.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Fuzzed onboarding' }),
    });
    const link = new URL(((await created.json()) as { embed_link_url: string }).embed_link_url);
    const subscription = await fetch(`${api}/v1/subscriptions`, {
      method: 'POST',
      headers: { authorization: sys.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://hooks.fuzz.test/receive', events: '*' }),
    });
    // A gateway account with the app linked, for the gateway's send and report.
    const gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await gatewayDb.initialize();
    accountToken = (await new AccountsRepository(gatewayDb).createAccount('fuzz', sys.userId)).token;
    await gatewayDb.destroy();
    const linked = await fetch(`${platform.urls.gateway}/v1/connections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accountToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'whatsapp', app_id: app.id }),
    });
    expect(linked.status).toBe(201);
    gatewayConnectionId = ((await linked.json()) as { id: string }).id;
    gatewayTemplate = template.name;
    Object.assign(valid, {
      appId: String(app.id),
      tplId: String(template.id),
      userId: sys.userId,
      id: ((await subscription.json()) as { id: string }).id,
      uuid: link.pathname.split('/').pop() as string,
      t: link.searchParams.get('t') as string,
    });
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  afterEach(async () => {
    for (const url of [platform.adminUrls.api, platform.adminUrls.gateway, platform.adminUrls.webhooks]) {
      expect({ url, status: (await fetch(`${url}/readyz`)).status }).toEqual({ url, status: 200 });
    }
  });

  const authArbitrary = () =>
    fc.oneof(
      { weight: 8, arbitrary: fc.constant(sys.auth) },
      { weight: 1, arbitrary: fc.constant(realUser.auth) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(undefined, 'Bearer', 'Bearer x', 'Basic Zm9vOmJhcg==', `Bearer ${'a'.repeat(300)}`),
      },
    );

  /**
   * Every operation of a document (at `base`, the server's URL), driven by it: path parameters
   * (`ids` holds real ones by name), query parameters, credential and body from its schemas, each
   * answer judged against the statuses the operation documents. Answers the operations' count.
   */
  const fuzzOperations = async (
    document: OpenApiDocument,
    base: string,
    auth: () => fc.Arbitrary<string | undefined>,
    ids: Record<string, string>,
  ): Promise<number> => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op: op as Operation })),
    );
    for (const { path, method, op } of operations) {
      const params = op.parameters ?? [];
      const pathParams = params.filter((p) => p.in === 'path');
      const queryParams = params.filter((p) => p.in === 'query');
      const bodySchema = op.requestBody?.content['application/json']?.schema;
      const linkToken = (op.security ?? []).some((s) => 'link' in s);
      const documented = Object.keys(op.responses);
      const request = fc.record({
        segments: fc.tuple(...pathParams.map((p) => segmentArbitrary(ids[p.name]))),
        query: fc.tuple(
          ...queryParams.map((p) =>
            fc.option(fc.oneof(fc.constantFrom(...(p.schema?.enum ?? ['1', '50'])).map(String), hostileString), {
              nil: undefined,
            }),
          ),
        ),
        t: linkToken
          ? fc.option(fc.oneof(fc.constant(ids.t), hostileString), { nil: undefined })
          : fc.constant(undefined),
        auth: linkToken ? fc.constant(undefined) : auth(),
        body: bodySchema ? bodyArbitrary(document, bodySchema) : fc.constant(undefined),
        contentType: fc.oneof(
          { weight: 9, arbitrary: fc.constant('application/json') },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              'text/plain',
              'application/x-www-form-urlencoded',
              'application/json; charset=latin1',
            ),
          },
        ),
      });
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          let url = path;
          pathParams.forEach((p, i) => (url = url.replace(`{${p.name}}`, r.segments[i])));
          const query = new URLSearchParams();
          queryParams.forEach((p, i) => r.query[i] !== undefined && query.set(p.name, r.query[i] as string));
          if (r.t !== undefined) query.set('t', r.t.replace(/[\ud800-\udfff]/g, ''));
          const qs = query.toString();
          const headers: Record<string, string> = {};
          if (r.auth) headers.authorization = r.auth;
          if (r.body !== undefined) headers['content-type'] = r.contentType;
          // The HTTP layer answers 400 (bad percent-encoding) and 414 (a long segment) for any
          // route, and 404 when an empty segment, or a dot segment that URL normalisation
          // removes ('.', '..', '%2e'), makes the path another route's.
          const reroutes = r.segments.some((s) => s === '' || /^(\.|%2e){1,2}$/i.test(s));
          const layer = ['400', '414', ...(reroutes ? ['404'] : [])];
          const target = `${base}${url}${qs ? `?${qs}` : ''}`;
          await check({ method, url: target, headers, body: r.body }, [...documented, ...layer]);
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
    }
    return operations.length;
  };

  it(
    'every operation of the api',
    async () => {
      expect(await fuzzOperations(doc, `${platform.urls.api}/api`, authArbitrary, valid)).toBeGreaterThan(20);
    },
    TIMEOUT_MS,
  );

  it(
    "the gateway's HTTP operations: the WhatsApp webhook (signed or not) and its verification",
    async () => {
      const gateway = `${platform.urls.gateway}/v1/inbound/whatsapp`;
      const verify = fc.record({
        mode: fc.option(fc.oneof(fc.constant('subscribe'), hostileString), { nil: undefined }),
        token: fc.option(fc.oneof(fc.constant('sandbox-verify-token'), hostileString), { nil: undefined }),
        challenge: fc.option(hostileString, { nil: undefined }),
      });
      await fc.assert(
        fc.asyncProperty(verify, async (q) => {
          const query = new URLSearchParams();
          const clean = (s: string) => s.replace(/[\ud800-\udfff]/g, '');
          if (q.mode !== undefined) query.set('hub.mode', clean(q.mode));
          if (q.token !== undefined) query.set('hub.verify_token', clean(q.token));
          if (q.challenge !== undefined) query.set('hub.challenge', clean(q.challenge));
          await check({ method: 'GET', url: `${gateway}?${query}`, headers: {} }, null);
        }),
        { numRuns: RUNS, endOnFailure: true },
      );

      // Signed bodies reach the normalizer: WhatsApp's shape with hostile values in every place.
      const change = fc.record({
        field: fc.oneof(fc.constant('messages'), hostileString),
        value: fc.oneof(
          fc.record({
            messaging_product: fc.constant('whatsapp'),
            metadata: fc.record({
              phone_number_id: fc.oneof(fc.constant('123'), hostileString),
              display_phone_number: hostileString,
            }),
            statuses: fc.array(
              fc.record({
                id: hostileString,
                status: fc.oneof(fc.constantFrom('sent', 'delivered', 'read', 'failed'), hostileString),
                timestamp: fc.oneof(fc.constant('1763700000'), hostileString),
                recipient_id: hostileString,
              }),
              { maxLength: 3 },
            ),
            messages: fc.array(
              fc.record({
                id: hostileString,
                from: hostileString,
                type: hostileString,
                timestamp: hostileString,
                text: fc.record({ body: hostileString }),
              }),
              { maxLength: 3 },
            ),
          }),
          hostileValue,
        ),
      });
      const webhook = fc.oneof(
        {
          weight: 4,
          arbitrary: fc.record({
            object: fc.constant('whatsapp_business_account'),
            entry: fc.array(fc.record({ id: hostileString, changes: fc.array(change, { maxLength: 3 }) }), {
              maxLength: 3,
            }),
          }),
        },
        { weight: 1, arbitrary: hostileValue },
      );
      await fc.assert(
        fc.asyncProperty(webhook, fc.boolean(), async (payload, signed) => {
          const body = JSON.stringify(payload) ?? 'null';
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (signed) headers['x-hub-signature-256'] = hubSignature('sandbox-app-secret', Buffer.from(body));
          await check({ method: 'POST', url: gateway, headers, body }, null);
        }),
        { numRuns: RUNS * 2, endOnFailure: true },
      );
    },
    TIMEOUT_MS,
  );
  it(
    "the gateway's send and delivery report: hostile bodies and queries with a valid account token",
    async () => {
      const gateway = platform.urls.gateway;
      const headers = { authorization: `Bearer ${accountToken}`, 'content-type': 'application/json' };
      const send = fc.oneof(
        {
          weight: 3,
          arbitrary: fc.record(
            {
              channel: fc.oneof(fc.constantFrom('whatsapp', 'telegram', 'max'), hostileValue),
              to: fc.oneof(fc.constant('5511987654321'), hostileValue),
              template: fc.oneof(fc.constant(gatewayTemplate), hostileValue),
              params: fc.oneof(fc.array(hostileString, { maxLength: 4 }), hostileValue),
              language: fc.oneof(fc.constant('en'), hostileValue),
              media_url: hostileValue,
              contact: fc.oneof(fc.constant('ext:nobody'), hostileValue),
              channels: fc.oneof(
                fc.constant(['whatsapp', 'telegram']),
                fc.array(hostileValue, { maxLength: 4 }),
                hostileValue,
              ),
            },
            { requiredKeys: [] },
          ),
        },
        { weight: 1, arbitrary: hostileValue },
      );
      await fc.assert(
        fc.asyncProperty(send, async (payload) => {
          const body = JSON.stringify(payload) ?? 'null';
          await check({ method: 'POST', url: `${gateway}/v1/messages`, headers, body }, null);
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
      const query = fc.dictionary(
        fc.constantFrom('channel', 'status', 'from', 'to', 'cursor', 'limit', 'other'),
        hostileString,
        { maxKeys: 4 },
      );
      await fc.assert(
        fc.asyncProperty(query, hostileString, async (q, id) => {
          const clean = (v: string) => v.replace(/[\ud800-\udfff]/g, '');
          const search = new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, clean(v)]));
          await check({ method: 'GET', url: `${gateway}/v1/messages?${search}`, headers, body: undefined }, null);
          await check(
            { method: 'GET', url: `${gateway}/v1/messages/${encodeURIComponent(clean(id))}`, headers, body: undefined },
            null,
          );
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
    },
    TIMEOUT_MS,
  );
  it(
    "the gateway's contacts and consent: hostile bodies, queries and references with a valid account token",
    async () => {
      const gateway = platform.urls.gateway;
      const headers = { authorization: `Bearer ${accountToken}`, 'content-type': 'application/json' };
      const clean = (v: string) => v.replace(/[\ud800-\udfff]/g, '');
      const contact = fc.oneof(
        {
          weight: 3,
          arbitrary: fc.record(
            {
              external_id: hostileValue,
              name: hostileValue,
              identities: fc.oneof(
                fc.record({ whatsapp: hostileValue, telegram: hostileValue, max: hostileValue }, { requiredKeys: [] }),
                hostileValue,
              ),
              time_zone: fc.oneof(fc.constant('Europe/Moscow'), hostileValue),
              language: hostileValue,
              attributes: fc.oneof(fc.dictionary(hostileString, hostileValue, { maxKeys: 5 }), hostileValue),
              lists: fc.oneof(fc.array(hostileString, { maxLength: 4 }), hostileValue),
            },
            { requiredKeys: [] },
          ),
        },
        { weight: 1, arbitrary: hostileValue },
      );
      const created = await fetch(`${gateway}/v1/contacts`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ identities: { telegram: '123456' } }),
      });
      expect(created.status).toBe(201);
      const id = ((await created.json()) as { id: string }).id;
      await fc.assert(
        fc.asyncProperty(contact, contact, hostileValue, async (payload, patch, consent) => {
          await check(
            { method: 'POST', url: `${gateway}/v1/contacts`, headers, body: JSON.stringify(payload) ?? 'null' },
            null,
          );
          await check(
            { method: 'PATCH', url: `${gateway}/v1/contacts/${id}`, headers, body: JSON.stringify(patch) ?? 'null' },
            null,
          );
          await check(
            {
              method: 'PUT',
              url: `${gateway}/v1/contacts/${id}/consent`,
              headers,
              body: JSON.stringify(consent) ?? 'null',
            },
            null,
          );
          await check(
            { method: 'PUT', url: `${gateway}/v1/consent/settings`, headers, body: JSON.stringify(consent) ?? 'null' },
            null,
          );
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
      await fc.assert(
        fc.asyncProperty(
          hostileString,
          fc.constantFrom('text/csv', 'application/x-ndjson', 'application/json', 'text/plain'),
          hostileString,
          async (file, type, id) => {
            const body = clean(file);
            const upload = { ...headers, 'content-type': type };
            await check({ method: 'POST', url: `${gateway}/v1/contacts/imports`, headers: upload, body }, null);
            const path = `/v1/contacts/imports/${encodeURIComponent(clean(id))}?after_row=${encodeURIComponent(clean(id))}`;
            await check({ method: 'GET', url: `${gateway}${path}`, headers, body: undefined }, null);
          },
        ),
        { numRuns: RUNS, endOnFailure: true },
      );
      const query = fc.dictionary(fc.constantFrom('list', 'q', 'channel', 'cursor', 'limit', 'other'), hostileString, {
        maxKeys: 4,
      });
      await fc.assert(
        fc.asyncProperty(query, hostileString, async (q, ref) => {
          const search = new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, clean(v)]));
          await check({ method: 'GET', url: `${gateway}/v1/contacts?${search}`, headers, body: undefined }, null);
          const csv = { ...headers, accept: 'text/csv' };
          await check({ method: 'GET', url: `${gateway}/v1/contacts?${search}`, headers: csv, body: undefined }, null);
          for (const path of [
            `/v1/contacts/${encodeURIComponent(clean(ref))}`,
            `/v1/contacts/ext:${encodeURIComponent(clean(ref))}/consent`,
          ]) {
            await check({ method: 'GET', url: `${gateway}${path}`, headers, body: undefined }, null);
          }
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
    },
    TIMEOUT_MS,
  );

  // Last: it may disconnect the account's channels, which the tests above send on.
  it(
    "every operation of the gateway's OpenAPI document, with the account's token",
    async () => {
      const gatewayDoc = (await (await fetch(`${platform.urls.gateway}/v1/openapi.json`)).json()) as OpenApiDocument;
      const auth = () =>
        fc.oneof(
          { weight: 8, arbitrary: fc.constant(`Bearer ${accountToken}`) },
          // A token of the api is no gateway token.
          { weight: 1, arbitrary: fc.constant(sys.auth) },
          { weight: 1, arbitrary: fc.constantFrom(undefined, 'Bearer', 'Bearer gk_x', `Bearer ${'a'.repeat(300)}`) },
        );
      expect(
        await fuzzOperations(gatewayDoc, platform.urls.gateway, auth, { id: gatewayConnectionId }),
      ).toBeGreaterThanOrEqual(13);
    },
    TIMEOUT_MS,
  );
});
