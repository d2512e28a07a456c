import { Controller, Get, Module, Param } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Writable } from 'node:stream';
import { createHttpApp, loggingModule, ServiceUnavailableProblem } from '@app/server';
import { hideGatewayPath } from './contact-log';

const EMAIL = 'anna.petrova@example.com';
const ID = '0190A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B';

describe("a contact's external id in the gateway's logs", () => {
  it.each([
    [`/v1/contacts/ext:${EMAIL}`, '/v1/contacts/ext:<hidden>'],
    [`/v1/contacts/ext:${EMAIL}/consent`, '/v1/contacts/ext:<hidden>/consent'],
    ['/v1/contacts/ext%3Aanna.petrova%40example.com', '/v1/contacts/ext:<hidden>'],
    ['/v1/contacts/%65xt%3aanna.petrova%40example.com/consent', '/v1/contacts/ext:<hidden>/consent'],
    ['/v1/contacts/ext%253Aanna.petrova', '/v1/contacts/ext:<hidden>'],
    ['/v1/contacts/ext:crm/anna.petrova/consent', '/v1/contacts/ext:<hidden>'],
    [`/v1/contacts/${EMAIL}`, '/v1/contacts/<hidden>'],
    ['/v1/contacts/+79990001122/consent', '/v1/contacts/<hidden>/consent'],
    ['/v1/course/pixel/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_secret.gif', '/v1/course/pixel/{token}.gif'],
  ])('writes %s as %s', (path, logged) => {
    expect(hideGatewayPath(path)).toBe(logged);
  });

  it.each([
    '/v1/contacts',
    '/v1/contacts/',
    `/v1/contacts/${ID}`,
    `/v1/contacts/${ID.toLowerCase()}/consent`,
    `/v1/contacts/imports/${ID}`,
    `/v1/messages/${ID}`,
    '/v1/campaigns',
  ])('writes %s as it is', (path) => {
    expect(hideGatewayPath(path)).toBe(path);
  });
});

/** Every line a service's logger writes, parsed. */
class Lines extends Writable {
  readonly all: Record<string, unknown>[] = [];
  readonly text: string[] = [];
  override _write(chunk: Buffer, _: string, done: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line) continue;
      this.text.push(line);
      this.all.push(JSON.parse(line) as Record<string, unknown>);
    }
    done();
  }
}

@Controller('v1/contacts')
class FailingContactsController {
  @Get(':ref')
  get(@Param('ref') ref: string): never {
    throw new Error(`lost the connection while reading a contact (${ref.length} characters)`);
  }

  @Get(':ref/consent')
  consent(): never {
    throw new ServiceUnavailableProblem('The service cannot reach its database right now; retry shortly.');
  }
}

/** The gateway's logging, as its app module configures it, in front of routes that fail. */
describe("the gateway's request and error logs", () => {
  const lines = new Lines();
  let app: NestFastifyApplication;
  let url: string;

  beforeAll(async () => {
    @Module({
      imports: [loggingModule('gateway', 'info', { hidePath: hideGatewayPath, destination: lines })],
      controllers: [FailingContactsController],
    })
    class LoggedModule {}
    app = await createHttpApp(LoggedModule, { name: 'gateway-log-spec' });
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(() => app?.close());

  const get = async (path: string, requestId: string) => {
    const res = await fetch(`${url}${path}`, { headers: { 'x-request-id': requestId } });
    await res.text();
    return res.status;
  };
  const linesOf = (requestId: string) =>
    lines.all.filter((l) => (l.req as { id?: string } | undefined)?.id === requestId);

  it('writes the access and error lines of a request naming a contact by external id without the id', async () => {
    expect(await get(`/v1/contacts/ext:${EMAIL}`, 'req-unexpected')).toBe(500);
    expect(await get('/v1/contacts/ext%3Aanna.petrova%40example.com/consent', 'req-outage')).toBe(503);
    // The access lines (those with `res`) are written as the response ends: the client may see it first.
    for (let i = 0; i < 1000 && lines.all.filter((l) => 'res' in l).length < 2; i++) await new Promise(setImmediate);

    const unexpected = linesOf('req-unexpected');
    expect(unexpected.map((l) => l.msg)).toEqual(['unhandled error', 'request errored']);
    const outage = linesOf('req-outage');
    expect(outage.map((l) => l.msg)).toEqual(['Service unavailable', 'request errored']);
    for (const line of unexpected)
      expect(line.req).toEqual({ id: 'req-unexpected', method: 'GET', url: '/v1/contacts/ext:<hidden>' });
    for (const line of outage) {
      expect(line.req).toEqual({ id: 'req-outage', method: 'GET', url: '/v1/contacts/ext:<hidden>/consent' });
    }
    expect(lines.text.join('\n')).not.toMatch(/anna\.petrova/);
  });
});
