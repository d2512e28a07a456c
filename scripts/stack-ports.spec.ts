import 'reflect-metadata';
import { forService, registeredChannels } from '@app/contracts';
import { createServer, Server } from 'node:net';
import { ApiConfig } from '../apps/api/src/config';
import { GatewayConfig } from '../apps/gateway/src/config';
import { QueueConfig } from '../apps/queue/src/config';
import { SandboxConfig } from '../apps/sandbox/src/config';
import { WebhooksConfig } from '../apps/webhooks/src/config';
import { freePortPair } from '@app/testing';
import {
  FETCH_BLOCKED_PORTS,
  portsInUse,
  portsInUseRefusal,
  serviceUrlsEnv,
  stackPortList,
  stackPorts,
  StackRefusal,
} from './stack-ports';

const refusalOf = (env: NodeJS.ProcessEnv): string[] => {
  try {
    stackPorts(env);
  } catch (err) {
    if (err instanceof StackRefusal) return err.lines;
    throw err;
  }
  return [];
};

/** Ports away from every default (3000-4900, 4223, 54329). */
const MOVED = {
  API_PORT: '13000',
  GATEWAY_PORT: '13100',
  QUEUE_PORT: '13200',
  WEBHOOKS_PORT: '13300',
  SANDBOX_PORT: '13900',
  EMBEDDED_PG_PORT: '15432',
  LOCAL_NATS_PORT: '15222',
};

describe('the local stack: ports and URLs', () => {
  it('every URL and port a service reads, from any of its settings, follows the ports the stack was given', () => {
    const env = serviceUrlsEnv(stackPorts(MOVED), {});
    const defaults = [
      new ApiConfig(),
      new GatewayConfig(),
      new QueueConfig(),
      new WebhooksConfig(),
      new SandboxConfig(),
    ];
    const pointsAtDefault = /^https?:\/\/(localhost|127\.0\.0\.1):\d+/;
    let checked = 0;
    for (const config of defaults) {
      for (const [key, value] of Object.entries(config)) {
        const isPort = key.endsWith('_PORT') && typeof value === 'number';
        if (!isPort && !(typeof value === 'string' && pointsAtDefault.test(value))) continue;
        checked++;
        expect({ [key]: env[key] }).toEqual({ [key]: expect.any(String) });
        expect(env[key]).not.toMatch(/:(3\d00|4\d00)\b|^(3\d00|4\d00)$/);
      }
    }
    // The channels' API URLs, which their registrations declare for the gateway and the queue.
    for (const reg of registeredChannels()) {
      for (const setting of Object.values(reg.settings)) {
        if (setting.type !== 'url' || !pointsAtDefault.test(String(forService(setting.default, setting.services[0]))))
          continue;
        checked++;
        expect(env[setting.env]).not.toMatch(/:(3\d00|4\d00)\b/);
      }
    }
    // API_PORT, API_PUBLIC_URL, GATEWAY_PORT, GATEWAY_PUBLIC_URL, WHATSAPP_GRAPH_URL, TELEGRAM_API_URL, MAX_API_URL, ...
    expect(checked).toBeGreaterThanOrEqual(11);
    expect(env.TELEGRAM_API_URL).toBe('http://localhost:13900/telegram');
    expect(env.MAX_API_URL).toBe('http://localhost:13900/max');
  });

  it("each service's admin port is its port + 1000 unless its own setting moves it", () => {
    const ports = stackPorts({ ...MOVED, API_ADMIN_PORT: '6000' });
    expect(ports.admin).toEqual({ api: 6000, gateway: 14100, queue: 14200, webhooks: 14300, sandbox: 14900 });
    expect(ports.postgres).toBe(15432);
    expect(ports.nats).toBe(15222);
    // Given DATABASE_URL and NATS_URL, the stack starts neither and holds no port for them.
    const given = stackPorts({ DATABASE_URL: 'postgres://x@127.0.0.1/db', NATS_URL: 'nats://127.0.0.1:4222' });
    expect(given.postgres).toBeUndefined();
    expect(stackPortList(given).map((p) => p.variable)).not.toContain('LOCAL_NATS_PORT');
  });

  it('refuses, with the setting to change, ports it could not use', () => {
    expect(refusalOf({ API_PORT: '5000' })).toEqual([]); // its admin port, 6000, is asked with node:http
    expect(FETCH_BLOCKED_PORTS.has(6000)).toBe(true);
    expect(refusalOf({ API_PORT: '6000' })).toEqual([expect.stringMatching(/^API_PORT=6000 is one of the ports/)]);
    expect(refusalOf({ ADMIN_PORT: '9000' })).toEqual([expect.stringContaining('API_ADMIN_PORT')]);
    expect(refusalOf({ QUEUE_PORT: 'abc' })).toEqual([expect.stringMatching(/^QUEUE_PORT must be a port number/)]);
    expect(refusalOf({ SANDBOX_PORT: '65000' })).toEqual([expect.stringContaining('a lower SANDBOX_PORT')]);
    expect(refusalOf({ API_PORT: '4100' })).toEqual([
      expect.stringMatching(
        /^port 4100 is asked for twice: gateway admin port \(GATEWAY_ADMIN_PORT\) and api \(API_PORT\); move one.$/,
      ),
    ]);
  });

  describe('a port another program holds', () => {
    const servers: Server[] = [];
    afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));
    const hold = (port: number, host: string) =>
      new Promise<void>((resolve, reject) => {
        const server = createServer();
        servers.push(server);
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });

    it('is found whether held on loopback only or on every interface, and named with what moves it', async () => {
      const [api, gateway] = [await freePortPair(1000), await freePortPair(1000)];
      const ports = stackPorts({ ...MOVED, API_PORT: String(api), GATEWAY_PORT: String(gateway) });
      await hold(api, '127.0.0.1');
      await hold(api + 1000, '127.0.0.1');
      await hold(gateway, '0.0.0.0');
      const taken = await portsInUse(stackPortList(ports));
      expect(taken.map((p) => [p.port, p.variable])).toEqual([
        [gateway, 'GATEWAY_PORT'],
        [api, 'API_PORT'],
        [api + 1000, 'API_ADMIN_PORT'],
      ]);
      const lines = (await portsInUseRefusal(taken, ports, {})).lines;
      expect(lines[0]).toBe(
        `gateway: port ${gateway} is already in use by another program; stop it, or move the stack's with GATEWAY_PORT=<port>.`,
      );
      // Moving the api moves its admin port with it: one setting each.
      expect(lines[3]).toMatch(/^For example, with ports free now: GATEWAY_PORT=\d+ API_PORT=\d+ pnpm stack$/);
      expect(lines[4]).toBe('Nothing was started.');
    });
  });
});
