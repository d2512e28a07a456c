import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { client, errorFields, expectProblem, Json } from './support/http';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('apps and profiles', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let sys: TestUser;
  let other: TestUser;
  let realUser: TestUser;
  let call: ReturnType<typeof client>;

  beforeAll(async () => {
    platform = await startPlatform({ suite: 'api-apps', services: ['api'] });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system');
    other = await factory.user('system');
    realUser = await factory.user('user');
    call = client(`${platform.urls.api}/api`);
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  const createApp = async (name = 'Acme support') => {
    const res = await call('POST', '/v1/wa/apps', { auth: sys.auth, body: { name } });
    expect(res.status).toBe(201);
    return res.body as { id: number; uuid: string; name: string; embed_link_url: string };
  };

  describe('POST /v1/wa/apps', () => {
    it('201 with exactly id, uuid (v4), name and embed_link_url', async () => {
      const res = await call('POST', '/v1/wa/apps', { auth: sys.auth, body: { name: 'Acme support' } });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['embed_link_url', 'id', 'name', 'uuid']);
      expect(res.body.id).toEqual(expect.any(Number));
      expect(res.body.uuid).toMatch(UUID_V4);
      expect(res.body.name).toBe('Acme support');
      expect(res.body.embed_link_url).toMatch(
        new RegExp(`^${platform.urls.api}/api/v1/onboarding/${res.body.uuid}\\?t=[0-9]+\\.[A-Za-z0-9_-]{43}$`),
      );
    });

    it('accepts names of 5 and of 150 characters', async () => {
      for (const name of ['x'.repeat(5), 'y'.repeat(150)]) {
        const res = await call('POST', '/v1/wa/apps', { auth: sys.auth, body: { name } });
        expect(res.status).toBe(201);
        expect(res.body.name).toBe(name);
      }
    });

    it('400 for a name of 4 or 151 characters, or none', async () => {
      for (const body of [{ name: 'x'.repeat(4) }, { name: 'y'.repeat(151) }, {}]) {
        const res = await call('POST', '/v1/wa/apps', { auth: sys.auth, body });
        expectProblem(res, 400, '/problems/validation-error');
        expect([...new Set(errorFields(res))]).toEqual(['name']);
      }
    });

    it('401 with WWW-Authenticate for a missing, malformed, unknown or revoked token', async () => {
      const revoked = await factory.user('system');
      await factory.revoke(revoked.token);
      for (const auth of [
        undefined,
        'Bearer',
        'Basic abc',
        'Bearer short',
        `Bearer sk_${'A'.repeat(43)}`,
        revoked.auth,
      ]) {
        const res = await call('POST', '/v1/wa/apps', { auth, body: { name: 'Acme support' } });
        expectProblem(res, 401, '/problems/unauthorized');
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
      }
    });

    it("403 for a real user's token", async () => {
      const res = await call('POST', '/v1/wa/apps', { auth: realUser.auth, body: { name: 'Acme support' } });
      expectProblem(res, 403, '/problems/forbidden');
    });
  });

  describe('GET /v1/wa/apps/{appId}', () => {
    it('200: a new app is INACTIVE, TIER_NOT_SET, UNKNOWN quality, no waba_id, not stopped', async () => {
      const before = Math.floor(Date.now() / 1000);
      const created = await createApp();
      const res = await call('GET', `/v1/wa/apps/${created.id}`, { auth: sys.auth });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: created.id,
        uuid: created.uuid,
        name: 'Acme support',
        status: 'INACTIVE',
        message_limit: 'TIER_NOT_SET',
        phone_quality: 'UNKNOWN',
        phone: null,
        waba_id: null,
        phone_number_id: null,
        is_mm_lite_supported: false,
        is_stopped: false,
        created_at: expect.any(Number),
      });
      expect(res.body.created_at).toBeGreaterThanOrEqual(before - 5);
      expect(res.body.created_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 5);
    });

    it('200: an onboarded app shows its number and its id on the channel, business account, tier and quality', async () => {
      const app = await factory.activeApp(sys.userId, {
        phone: '4915112345678',
        waba_id: '123456789012345',
        message_limit: 'TIER_2K',
        phone_quality: 'GREEN',
      });
      const res = await call('GET', `/v1/wa/apps/${app.id}`, { auth: sys.auth });
      expect(res.body).toMatchObject({
        status: 'ACTIVE',
        phone: '4915112345678',
        waba_id: '123456789012345',
        phone_number_id: app.phoneNumberId,
        message_limit: 'TIER_2K',
        phone_quality: 'GREEN',
      });
      expect(res.body.phone_number_id).toMatch(/^\d+$/);
    });

    it('404 for an unknown or non-numeric id', async () => {
      for (const id of ['999999', 'abc', '0', '1.5', '99999999999']) {
        expectProblem(await call('GET', `/v1/wa/apps/${id}`, { auth: sys.auth }), 404, '/problems/not-found');
      }
    });

    it("403 for another tenant's app, 403 for a user token, 401 without a token", async () => {
      const created = await createApp();
      expectProblem(await call('GET', `/v1/wa/apps/${created.id}`, { auth: other.auth }), 403);
      expectProblem(await call('GET', `/v1/wa/apps/${created.id}`, { auth: realUser.auth }), 403);
      const res = await call('GET', `/v1/wa/apps/${created.id}`);
      expectProblem(res, 401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    });
  });

  describe('profile', () => {
    it('GET 200: fields without a value are absent', async () => {
      const app = await createApp();
      const res = await call('GET', `/v1/wa/apps/${app.id}/profile`, { auth: sys.auth });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
    });

    it('PATCH 204 sets fields, keeps omitted ones, and null clears one', async () => {
      const app = await createApp();
      const path = `/v1/wa/apps/${app.id}/profile`;
      const full = {
        address: 'Unter den Linden 1, Berlin',
        country: 'DE',
        description: 'We sell tea.',
        email: 'support@acme.example.com',
        website: 'https://acme.example.com',
        about: 'Tea, delivered.',
      };
      const patched = await call('PATCH', path, { auth: sys.auth, body: full });
      expect(patched.status).toBe(204);
      expect(patched.text).toBe('');
      expect((await call('GET', path, { auth: sys.auth })).body).toEqual(full);

      expect((await call('PATCH', path, { auth: sys.auth, body: { about: 'Fresh tea.', email: null } })).status).toBe(
        204,
      );
      const { email: _cleared, ...rest } = full;
      expect((await call('GET', path, { auth: sys.auth })).body).toEqual({ ...rest, about: 'Fresh tea.' });
    });

    it('PATCH accepts about of 139 characters and refuses 140', async () => {
      const app = await createApp();
      const path = `/v1/wa/apps/${app.id}/profile`;
      expect((await call('PATCH', path, { auth: sys.auth, body: { about: 'a'.repeat(139) } })).status).toBe(204);
      const res = await call('PATCH', path, { auth: sys.auth, body: { about: 'a'.repeat(140) } });
      expectProblem(res, 400, '/problems/validation-error');
      expect(errorFields(res)).toEqual(['about']);
    });

    it('PATCH 400 for a bad email, website, country, a wrong type or an unknown field', async () => {
      const app = await createApp();
      const path = `/v1/wa/apps/${app.id}/profile`;
      const cases: [Record<string, unknown>, string][] = [
        [{ email: 'not-an-email' }, 'email'],
        [{ website: 'ftp://acme.example.com' }, 'website'],
        [{ website: 'acme' }, 'website'],
        [{ country: 'Germany' }, 'country'],
        [{ description: 42 }, 'description'],
        [{ phone: '123' }, 'phone'],
      ];
      for (const [body, field] of cases) {
        const res = await call('PATCH', path, { auth: sys.auth, body });
        expectProblem(res, 400, '/problems/validation-error');
        expect(errorFields(res)).toContain(field);
      }
      expect((await call('GET', path, { auth: sys.auth })).body).toEqual({});
    });

    it('photo: 200 with a URL that serves an image', async () => {
      const app = await createApp('Green Tea Shop');
      const res = await call('GET', `/v1/wa/apps/${app.id}/profile/photo`, { auth: sys.auth });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['url']);
      expect(res.body.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/profile-photos\/.+\.svg$/);
      const image = await fetch(res.body.url);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      const svg = await image.text();
      expect(svg).toMatch(/^<svg /);
      expect(svg).toContain('>GT</text>');
      expect(
        (await fetch(res.body.url.replace(/[0-9a-f-]{36}\.svg$/, '00000000-0000-4000-8000-000000000000.svg'))).status,
      ).toBe(404);
    });

    it.each([
      ['GET', '/profile'],
      ['PATCH', '/profile'],
      ['GET', '/profile/photo'],
    ])('%s %s: 404 unknown app, 403 other tenant and user token, 401 no token', async (method, suffix) => {
      const app = await createApp();
      const body = method === 'PATCH' ? { about: 'hijacked' } : undefined;
      expectProblem(await call(method, `/v1/wa/apps/987654${suffix}`, { auth: sys.auth, body }), 404);
      expectProblem(await call(method, `/v1/wa/apps/${app.id}${suffix}`, { auth: other.auth, body }), 403);
      expectProblem(await call(method, `/v1/wa/apps/${app.id}${suffix}`, { auth: realUser.auth, body }), 403);
      expectProblem(await call(method, `/v1/wa/apps/${app.id}${suffix}`, { body }), 401);
      expect((await call('GET', `/v1/wa/apps/${app.id}/profile`, { auth: sys.auth })).body).toEqual({});
    });
  });

  describe('OpenAPI', () => {
    it('serves the document with the API’s paths, fields and status codes, and a docs page', async () => {
      const res = await fetch(`${platform.urls.api}/api/openapi.json`);
      expect(res.status).toBe(200);
      const doc = (await res.json()) as Json;
      expect(doc.openapi).toMatch(/^3\./);
      expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      const codes = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).sort();
      expect(codes('/v1/wa/apps', 'post')).toEqual(expect.arrayContaining(['201', '401', '403']));
      expect(codes('/v1/wa/apps/{appId}', 'get')).toEqual(expect.arrayContaining(['200', '401', '403', '404']));
      expect(codes('/v1/wa/apps/{appId}/profile', 'patch')).toEqual(
        expect.arrayContaining(['204', '401', '403', '404']),
      );
      expect(codes('/v1/wa/apps/{appId}/profile/photo', 'get')).toEqual(
        expect.arrayContaining(['200', '401', '403', '404']),
      );
      expect(codes('/v1/wa/apps/{appId}/templates', 'post')).toEqual(
        expect.arrayContaining(['201', '400', '401', '403', '404']),
      );
      expect(codes('/v1/wa/apps/{appId}/templates', 'get')).toEqual(expect.arrayContaining(['200', '401', '404']));
      expect(codes('/v1/wa/apps/{appId}/templates/{tplId}', 'patch')).toEqual(
        expect.arrayContaining(['204', '400', '401', '403', '404', '422']),
      );
      expect(codes('/v1/wa/apps/{appId}/templates/{tplId}', 'delete')).toEqual(
        expect.arrayContaining(['204', '401', '403', '404']),
      );
      const schemas = doc.components.schemas;
      expect(Object.keys(schemas.AppDto.properties).sort()).toEqual(
        [
          'created_at',
          'id',
          'is_mm_lite_supported',
          'is_stopped',
          'message_limit',
          'name',
          'phone',
          'phone_number_id',
          'phone_quality',
          'status',
          'uuid',
          'waba_id',
        ].sort(),
      );
      expect(schemas.AppDto.properties.message_limit.enum).toEqual([
        'TIER_50',
        'TIER_250',
        'TIER_2K',
        'TIER_10K',
        'TIER_100K',
        'TIER_NOT_SET',
        'TIER_UNLIMITED',
      ]);
      expect(schemas.CreateAppDto.properties.name).toMatchObject({ minLength: 5, maxLength: 150 });
      expect(schemas.CreateTemplateDto.properties.body).toMatchObject({ maxLength: 550 });
      expect(schemas.TemplateDto.properties).toHaveProperty('failure_details');
      expect(doc.paths['/v1/wa/apps/{appId}'].get.responses['404'].content).toHaveProperty('application/problem+json');

      const page = await fetch(`${platform.urls.api}/api/docs`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('swagger-ui');
      const bundle = await fetch(`${platform.urls.api}/api/docs/assets/swagger-ui-bundle.js`);
      expect(bundle.status).toBe(200);
    });
  });
});
