import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstream } from '@nats-io/jetstream';
import { SUBSCRIPTIONS_RPC, Topology } from '@app/contracts';
import { migrateSchema } from '@app/database';
import {
  natsAuthorizationConfig,
  natsInboxPrefix,
  natsInboxWildcard,
  natsServerEnv,
  NatsServiceUser,
  natsUsers,
  pullNoWait,
  removeMessage,
  randomNatsPasswords,
  setupTopology,
  DEFAULT_TOPOLOGY_OPTIONS,
  NatsClients,
  withOwnInbox,
} from '@app/messaging';
import { killHard, spawnTs, startTestInfra, TestInfra, waitFor } from '@app/testing';
import { ALL_SCHEMAS } from '../../scripts/schemas';
import { ApiFactory } from '../support/factories';
import { freePort } from '../support/platform';

const NATS_SERVER = '/usr/sbin/nats-server';

/**
 * A private nats-server started with the generated authorization (the same text `pnpm stack` and
 * the Helm values use): each service user may touch its own subjects and nothing else.
 */
(existsSync(NATS_SERVER) ? describe : describe.skip)('NATS users and permissions', () => {
  const topology = new Topology('authz');
  const passwords = randomNatsPasswords();
  let dir: string;
  let server: ChildProcess;
  let url: string;
  let log: string;
  const open: NatsConnection[] = [];

  // Connected the way the services connect: with the user's own inbox prefix.
  const as = async (user: NatsServiceUser): Promise<NatsConnection> => {
    const nc = await connect({
      servers: url,
      ...withOwnInbox({ user, pass: passwords[user] }, topology.prefix),
      name: `test-${user}`,
    });
    open.push(nc);
    return nc;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nats-authz-'));
    const conf = join(dir, 'auth.conf');
    writeFileSync(conf, natsAuthorizationConfig(topology));
    const port = await freePort();
    log = join(dir, 'nats.log');
    server = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir, '-c', conf, '-l', log], {
      env: { ...process.env, ...natsServerEnv(passwords) },
      stdio: 'ignore',
    });
    url = `nats://127.0.0.1:${port}`;
    await waitFor(
      async () => {
        try {
          (await connect({ servers: url, user: 'setup', pass: passwords.setup })).close();
          return true;
        } catch {
          return false;
        }
      },
      30_000,
      'nats-server with authorization',
    );
    const setup = await NatsClients.connect({
      url,
      name: 'setup',
      auth: { user: 'setup', pass: passwords.setup },
      prefix: topology.prefix,
    });
    await setupTopology(await setup.jsm(), topology, { ...DEFAULT_TOPOLOGY_OPTIONS, storage: 'memory' });
    await setup.drain();
  });

  afterAll(async () => {
    for (const nc of open) await nc.close().catch(() => undefined);
    if (server) await killHard(server);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a connection without a user or with a wrong password', async () => {
    await expect(connect({ servers: url, reconnect: false })).rejects.toThrow(/Authorization/i);
    await expect(connect({ servers: url, user: 'api', pass: 'not-the-password', reconnect: false })).rejects.toThrow(
      /Authorization/i,
    );
  });

  it('only the api may send the webhooks service its subscription requests, which carry the tenant', async () => {
    const subject = topology.rpc(SUBSCRIPTIONS_RPC.list);
    const webhooks = await as('webhooks');
    const replyTo: string[] = [];
    webhooks.subscribe(subject, {
      queue: 'webhooks',
      callback: (_e, m) => {
        replyTo.push(m.reply ?? '');
        m.respond('[]');
      },
    });
    await webhooks.flush();

    // The api asks and gets the webhooks service's answer, in its own inbox.
    const reply = await (await as('api')).request(subject, '{"user_id":"u1"}', { timeout: 2000 });
    expect(reply.string()).toBe('[]');
    expect(replyTo).toHaveLength(1);
    expect(replyTo[0].startsWith(`${natsInboxPrefix(topology, 'api')}.`)).toBe(true);

    // Every other service is refused publishing there: no one can forge a user_id.
    for (const user of ['gateway', 'queue', 'webhooks'] as const) {
      const nc = await as(user);
      await expect(nc.request(subject, '{"user_id":"victim"}', { timeout: 2000 })).rejects.toThrow(
        /permissions violation/i,
      );
    }
    // Nor may another service listen in on those requests.
    const gateway = await as('gateway');
    const errors: string[] = [];
    void (async () => {
      for await (const s of gateway.status()) if (s.type === 'error') errors.push(String(s.error));
    })();
    gateway.subscribe(subject);
    await gateway.flush();
    await waitFor(() => errors.some((e) => /permissions violation/i.test(e)), 5000, 'subscribe refused');
  });

  it("each user reads replies in its own inbox only: another service's inbox and the shared _INBOX.> are refused", async () => {
    // Whether the server took a subscription: a refusal (-ERR) arrives before the flush's PONG.
    const subscribing = async (nc: NatsConnection, subject: string): Promise<string> => {
      const sub = nc.subscribe(subject, { callback: () => undefined });
      await nc.flush();
      if (!sub.isClosed()) {
        sub.unsubscribe();
        return 'allowed';
      }
      return String(await sub.closed);
    };
    for (const user of natsUsers()) {
      const nc = await as(user);
      // Every service's replies, the api's consent answers among them, once arrived there.
      expect(`${user} on _INBOX.>: ${await subscribing(nc, '_INBOX.>')}`).toMatch(/permissions violation/i);
      for (const other of natsUsers().filter((u) => u !== user)) {
        expect(`${user} on ${other}'s: ${await subscribing(nc, natsInboxWildcard(topology, other))}`).toMatch(
          /permissions violation/i,
        );
      }
      expect(await subscribing(nc, natsInboxWildcard(topology, user))).toBe('allowed');
    }
  });

  it('a queue user pulls only its own channel, the api may enqueue but not pull', async () => {
    const api = await as('api');
    const ack = await jetstream(api).publish(topology.outboundSubject('service', 'whatsapp'), '{"id":"m1"}', {
      msgID: 'm1',
    });
    expect(ack.duplicate).toBe(false);

    const stream = topology.outboundStream('service');
    const telegram = await as('queue_telegram');
    // Its pull request is dropped by the server: nothing comes back, the message stays for its owner.
    expect(await pullNoWait(telegram, stream, topology.outboundConsumer('service', 'whatsapp'), 1, 1500)).toEqual([]);
    // Nor may it publish another channel's work or someone else's events.
    await expect(
      jetstream(telegram).publish(topology.outboundSubject('service', 'whatsapp'), '{}', { timeout: 2000 }),
    ).rejects.toThrow(/permissions violation/i);

    const whatsapp = await as('queue_whatsapp');
    const [msg] = await pullNoWait(whatsapp, stream, topology.outboundConsumer('service', 'whatsapp'), 1);
    expect(msg.json<{ id: string }>().id).toBe('m1');
    await msg.ack();
  });

  it('a queue user erases a dead-lettered work item from its outbound stream; the api may not', async () => {
    const api = await as('api');
    const stream = topology.outboundStream('marketing');
    const { seq } = await jetstream(api).publish(topology.outboundSubject('marketing', 'whatsapp'), '{"id":"m2"}', {
      msgID: 'm2',
    });
    await expect((await jetstream(api).jetstreamManager(false)).streams.deleteMessage(stream, seq)).rejects.toThrow();
    const whatsapp = await as('queue_whatsapp');
    const [msg] = await pullNoWait(whatsapp, stream, topology.outboundConsumer('marketing', 'whatsapp'), 1);
    await removeMessage(jetstream(whatsapp), msg);
    await msg.term();
    await expect(removeMessage(jetstream(whatsapp), msg)).resolves.toBeUndefined(); // already gone: fine
  });

  it('a gateway user stores callbacks in INBOUND and hears them arrive, but reads them only through its relay', async () => {
    const gateway = await as('gateway');
    const seen: string[] = [];
    gateway.subscribe(topology.inboundSubject('whatsapp'), { callback: (_, m) => void seen.push(m.subject) });
    await gateway.flush();
    const subject = topology.inboundSubject('whatsapp');
    const { seq } = await jetstream(gateway).publish(subject, '{}', { msgID: 'callback-k1' });
    await waitFor(() => seen.length > 0, 5_000, 'the store heard on the stream subject');
    expect(seen).toEqual([subject]);
    // Neither the gateway nor another service reads the stream by subject.
    for (const user of ['gateway', 'api'] as const) {
      await expect(
        (await jetstream(await as(user)).jetstreamManager(false)).streams.getMessage(topology.stream('inbound'), {
          last_by_subj: subject,
        }),
      ).rejects.toThrow();
    }
    // Not a callback: out of the way of the relay the services below start.
    await (
      await jetstream(await as('setup')).jetstreamManager(false)
    ).streams.deleteMessage(topology.stream('inbound'), seq);
  });

  describe('the services themselves, each with its own user', () => {
    let infra: TestInfra | undefined;
    const services: ChildProcess[] = [];

    afterAll(async () => {
      await Promise.all(services.map((s) => killHard(s)));
      await infra?.stop();
    });

    it('start, become ready, answer an RPC across services, and trip no permission', async () => {
      infra = await startTestInfra({ suite: 'nats-authz', nats: false });
      // The earlier cases' deliberate violations are in the log already: look only past them.
      const logStart = readFileSync(log, 'utf8').length;
      for (const def of ALL_SCHEMAS) await migrateSchema(infra.databaseUrl, def);
      const names = ['webhooks', 'gateway', 'queue', 'api'] as const;
      const ports: Record<string, number> = {};
      const admin: Record<string, number> = {};
      for (const n of names) [ports[n], admin[n]] = [await freePort(), await freePort()];
      const env = {
        ...infra.env,
        NATS_URL: url,
        NATS_PREFIX: topology.prefix,
        API_PORT: String(ports.api),
        GATEWAY_PORT: String(ports.gateway),
        QUEUE_PORT: String(ports.queue),
        WEBHOOKS_PORT: String(ports.webhooks),
      };
      for (const n of names) {
        services.push(
          spawnTs(`apps/${n}/src/main.ts`, {
            ...env,
            ADMIN_PORT: String(admin[n]),
            NATS_USER: n,
            NATS_PASSWORD: passwords[n],
          }),
        );
      }
      const ready = async () =>
        (await Promise.all(names.map((n) => fetch(`http://127.0.0.1:${admin[n]}/readyz`).then((r) => r.status)))).every(
          (s) => s === 200,
        );
      await waitFor(
        async () => {
          try {
            return await ready();
          } catch {
            return false;
          }
        },
        45_000,
        'services ready',
      );

      // api -> webhooks over the transport, with both users' permissions in force.
      const factory = await ApiFactory.connect(infra.databaseUrl);
      try {
        const user = await factory.user();
        const list = () =>
          fetch(`http://127.0.0.1:${ports.api}/api/v1/subscriptions`, { headers: { authorization: user.auth } });
        // Ready (admin port) comes a moment before every request/reply subscription is in place at
        // the server: the first call may find none yet; within seconds it must answer.
        let status = 0;
        await waitFor(async () => (status = (await list()).status) === 200, 15_000, 'the api -> webhooks request');
        expect(status).toBe(200);
      } finally {
        await factory.dataSource.destroy();
      }
      // The consumers have pulled, the queue has read its consumers and bucket: all allowed (the
      // cases above show that a violation does show in this log).
      const since = readFileSync(log, 'utf8').slice(logStart);
      expect(since).not.toMatch(/Violation/);
    });
  });
});
