import * as http from 'node:http';
import * as https from 'node:https';

// Idle connections are closed after 4 s, well before any server would close them under a request.
const AGENT = { keepAlive: true, maxSockets: 64, timeout: 4000 };
const agents = { http: new http.Agent(AGENT), https: new https.Agent(AGENT) };

/**
 * POSTs a JSON body the way a channel calls a webhook: over kept-alive connections, the answer's
 * body read and dropped. Resolves with the HTTP status; rejects when the target cannot be reached
 * or does not answer within `timeoutMs`. (Plain node:http: fetch costs several times the CPU per
 * call, which on a shared machine the services under test would pay for.)
 */
export function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ status: number; ok: boolean }> {
  const target = new URL(url);
  const isHttps = target.protocol === 'https:';
  const payload = Buffer.from(body, 'utf8');
  return new Promise((resolve, reject) => {
    const req = (isHttps ? https : http).request(
      target,
      {
        method: 'POST',
        agent: isHttps ? agents.https : agents.http,
        headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length, ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          clearTimeout(timer);
          const status = res.statusCode ?? 0;
          resolve({ status, ok: status >= 200 && status < 300 });
        });
        res.on('error', fail);
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    function fail(err: Error) {
      clearTimeout(timer);
      reject(err);
    }
    req.on('error', fail);
    req.end(payload);
  });
}
