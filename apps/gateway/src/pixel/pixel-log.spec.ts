import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pinoHttp } from 'pino-http';
import { httpLogOptions } from '@app/server';
import { hideGatewayPath } from '../contacts/contact-log';

/** The gateway's access log, as its app module configures it, over a real HTTP server. */
describe("the gateway's access log", () => {
  let server: Server;
  const lines: string[] = [];

  beforeAll(async () => {
    const log = pinoHttp(httpLogOptions('gateway', 'info', { hidePath: hideGatewayPath }), {
      write: (line: string) => lines.push(line),
    });
    server = createServer((req, res) => {
      log(req, res);
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = async (path: string) => {
    const { port } = server.address() as AddressInfo;
    await (await fetch(`http://127.0.0.1:${port}${path}`)).text();
    return JSON.parse(lines[lines.length - 1]) as { req: { url: string } };
  };

  it("writes a pixel's path without its token (a credential that marks the message READ)", async () => {
    const token = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_secret';
    const line = await get(`/v1/course/pixel/${token}.gif?utm=1`);
    expect(line.req.url).toBe('/v1/course/pixel/{token}.gif');
    // A path the route does not take (a trailing slash, more segments) still carries the token.
    expect((await get(`/v1/course/pixel/${token}.gif/`)).req.url).toBe('/v1/course/pixel/{token}.gif');
    expect((await get(`/v1/course/pixel/${token}/x.gif`)).req.url).toBe('/v1/course/pixel/{token}.gif');
    expect(lines.join('')).not.toContain(token);
  });

  it('writes other paths as they are, without their query', async () => {
    expect((await get('/v1/messages/0190a1b2-c3d4?cursor=x')).req.url).toBe('/v1/messages/0190a1b2-c3d4');
  });
});
