import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookPoster } from './webhook-post';

describe('WebhookPoster', () => {
  let server: Server;
  let url: string;
  let inFlight = 0;
  let most = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      req.resume();
      req.on('end', () =>
        setTimeout(() => {
          inFlight--;
          res.writeHead(req.url === '/gone' ? 410 : 200).end();
        }, 150),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('keeps at most its limit of calls in flight to a receiver; a waiting call still gets its whole timeout', async () => {
    const poster = new WebhookPoster(2);
    // Ten calls of 150 ms through two slots take about 750 ms: more than each call's 600 ms
    // timeout, which therefore runs only from when the call is sent (and leaves a call 450 ms to
    // spare on a busy machine).
    const answers = await Promise.all(Array.from({ length: 10 }, () => poster.post(`${url}/hook`, '{}', {}, 600)));
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(most).toBe(2);
    const gone = await poster.post(`${url}/gone`, '{}', {}, 300);
    expect(gone).toEqual({ status: 410, ok: false });
  });

  it('a call the receiver does not answer in time fails and frees its slot', async () => {
    const poster = new WebhookPoster(1);
    await expect(poster.post(`${url}/hook`, '{}', {}, 50)).rejects.toThrow();
    await expect(poster.post(`${url}/hook`, '{}', {}, 1000)).resolves.toEqual({ status: 200, ok: true });
  });
});
