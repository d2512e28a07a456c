import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { client, errorFields, expectProblem } from './support/http';

/** Framework-level errors on the api's routes: each its own 4xx problem, never a 500. */
describe('api errors are RFC 9457 problems', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let sys: TestUser;
  let call: ReturnType<typeof client>;

  beforeAll(async () => {
    platform = await startPlatform({ suite: 'api-errors', services: ['api'] });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system');
    call = client(`${platform.urls.api}/api`);
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  it('malformed JSON: 400', async () => {
    const res = await call('POST', '/v1/wa/apps', {
      auth: sys.auth,
      raw: '{"name": "broken',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 400);
    expect(res.body.detail).toMatch(/not valid JSON/);
  });

  it('an unknown field: 400 naming the field', async () => {
    const res = await call('POST', '/v1/wa/apps', { auth: sys.auth, body: { name: 'Valid name', colour: 'red' } });
    expectProblem(res, 400, '/problems/validation-error');
    expect(errorFields(res)).toEqual(['colour']);
  });

  it('a wrong type: 400 naming the field', async () => {
    const res = await call('POST', '/v1/wa/apps', { auth: sys.auth, body: { name: 12345 } });
    expectProblem(res, 400, '/problems/validation-error');
    expect(errorFields(res)).toContain('name');
  });

  it('a JSON array or a bare value instead of an object: 400', async () => {
    for (const raw of ['[]', '"name"', '42', 'null']) {
      const res = await call('POST', '/v1/wa/apps', {
        auth: sys.auth,
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expectProblem(res, 400);
    }
  });

  it('a body over 1 MiB: 413', async () => {
    const res = await call('POST', '/v1/wa/apps', {
      auth: sys.auth,
      raw: JSON.stringify({ name: 'x'.repeat(1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 413);
  });

  it('a text/plain body: 415', async () => {
    const res = await call('POST', '/v1/wa/apps', {
      auth: sys.auth,
      raw: 'name=hello',
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(res, 415);
  });

  it('a nested unknown field of a template button: 400 with its dotted path', async () => {
    const app = await factory.activeApp(sys.userId);
    const res = await call('POST', `/v1/wa/apps/${app.id}/templates`, {
      auth: sys.auth,
      body: {
        name: 'nested_check',
        language: 'en',
        category: 'UTILITY',
        body: 'Hello',
        body_example: 'Hello',
        buttons: [{ type: 'QUICK_REPLY', text: 'Yes', colour: 'red' }],
      },
    });
    expectProblem(res, 400, '/problems/validation-error');
    expect(errorFields(res)).toEqual(['buttons.0.colour']);
  });

  it('a PATCH without a body: 400, not a 500', async () => {
    const app = await factory.activeApp(sys.userId);
    const res = await call('PATCH', `/v1/wa/apps/${app.id}/templates/1`, { auth: sys.auth });
    expectProblem(res, 400, '/problems/validation-error');
    expect(errorFields(res)).toEqual(expect.arrayContaining(['body', 'body_example']));
  });
});
