import { ChildProcess } from 'node:child_process';
import { NatsClients } from '@app/messaging';
import { killHard, spawnTs, waitFor } from '@app/testing';
import { AppEntity } from '../src/wa-apps/app.entity';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { client } from './support/http';

const START = 1000;
const PRICE = 0.02; // UTILITY in the default price table

/**
 * The api killed with SIGKILL while 20 connections send: after a restart, every accepted send and
 * every committed one is on the outbound stream exactly once, and the money adds up.
 */
describe('api crash during a send run', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let nats: NatsClients;
  let user: TestUser;
  let app: AppEntity;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    platform = await startPlatform({ suite: 'messages-crash', services: [] });
    nats = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'messages-crash-test' });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    user = await factory.user('system', { balance: START });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_UNLIMITED' });
    await factory.sendableTemplate(app.id, { name: 'crash_tpl', category: 'UTILITY', body: 'Hi' });
  });

  afterAll(async () => {
    if (child) await killHard(child);
    await nats?.drain();
    await factory?.close();
    await platform?.stop();
  });

  const sql = (query: string, params: unknown[] = []) => factory.dataSource.query(query, params);

  async function startApi(): Promise<ChildProcess> {
    const proc = spawnTs('apps/api/src/main.ts', {
      ...platform.env,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_BURST: '100000',
      SETTLEMENT_INTERVAL_MS: '200',
      OUTBOX_RELAY_AFTER_MS: '500',
      ADMIN_PORT: new URL(platform.adminUrls.api).port,
    });
    proc.stdout?.resume();
    proc.stderr?.resume();
    await waitFor(
      async () => (await fetch(`${platform.adminUrls.api}/readyz`).catch(() => null))?.ok === true,
      30_000,
      'the api ready',
      200,
    );
    return proc;
  }

  it('nothing accepted or committed is lost, nothing is queued twice, no money is lost', async () => {
    child = await startApi();
    const call = client(`${platform.urls.api}/api`);
    const accepted = new Set<string>();
    let killed = false;
    const sender = async (n: number) => {
      for (let i = 0; !killed; i++) {
        const res = await call('POST', `/v1/wa/apps/${app.id}/messages`, {
          auth: user.auth,
          body: {
            phone: `4475${String(n).padStart(3, '0')}${String(i).padStart(5, '0')}`,
            type: 'TEMPLATE',
            template: { name: 'crash_tpl' },
          },
        }).catch(() => null);
        if (res?.status === 201) accepted.add(res.body.message.id as string);
      }
    };
    const senders = Array.from({ length: 20 }, (_, n) => sender(n));
    await waitFor(async () => accepted.size >= 150, 60_000, '150 sends accepted', 20);
    await killHard(child);
    killed = true;
    await Promise.all(senders);

    child = await startApi();
    await waitFor(
      async () => ((await sql(`SELECT count(*)::int AS n FROM outbox`)) as { n: number }[])[0].n === 0,
      30_000,
      'the relay to publish what the kill left behind',
      200,
    );

    const rows = (await sql(`SELECT id FROM messages WHERE app_id = $1`, [app.id])) as { id: string }[];
    const committed = new Set(rows.map((r) => r.id));
    for (const id of accepted) expect(committed.has(id)).toBe(true);

    const jsm = await nats.jsm();
    const stream = platform.infra.topology.outboundStream('service');
    const info = await jsm.streams.info(stream);
    const onStream: string[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(stream, { seq });
      if (m) onStream.push(m.json<{ id: string }>().id);
    }
    // Every committed message once: none lost in the gap between commit and publish, none twice.
    expect(onStream.length).toBe(committed.size);
    expect(new Set(onStream)).toEqual(committed);

    const [balance] = (await sql(
      `SELECT available::float AS available, held::float AS held FROM balances WHERE user_id = $1`,
      [user.userId],
    )) as { available: number; held: number }[];
    const [holds] = (await sql(
      `SELECT count(*)::int AS n, coalesce(sum(amount), 0)::float AS sum FROM holds WHERE user_id = $1 AND status = 'HELD'`,
      [user.userId],
    )) as { n: number; sum: number }[];
    expect(holds.n).toBe(committed.size);
    expect(balance.held).toBeCloseTo(holds.sum, 4);
    expect(balance.held).toBeCloseTo(committed.size * PRICE, 4);
    expect(balance.available + balance.held).toBeCloseTo(START, 4);
  });

  it('a send whose Idempotency-Key was in flight at the kill is accepted soon after the restart, once', async () => {
    child ??= await startApi();
    const call = client(`${platform.urls.api}/api`);
    const key = `crash-${Date.now()}`;
    const send = () =>
      call('POST', `/v1/wa/apps/${app.id}/messages`, {
        auth: user.auth,
        headers: { 'idempotency-key': key },
        body: { phone: '447512345678', type: 'TEMPLATE', template: { name: 'crash_tpl' } },
      });
    // The send holds its key and waits on the user's balance row, locked here: it is in flight.
    const lock = factory.dataSource.createQueryRunner();
    await lock.connect();
    await lock.startTransaction();
    try {
      await lock.query(`SELECT 1 FROM balances WHERE user_id = $1 FOR UPDATE`, [user.userId]);
      const first = send().catch(() => null);
      await waitFor(
        async () =>
          (
            (await sql(`SELECT state FROM idempotency_keys WHERE user_id = $1 AND key = $2`, [user.userId, key])) as {
              state: string;
            }[]
          )[0]?.state === 'PENDING',
        10_000,
        'the key in progress',
        20,
      );
      await killHard(child);
      expect(await first).toBeNull(); // the connection died with the api
    } finally {
      await lock.rollbackTransaction();
      await lock.release();
    }
    child = await startApi();
    // Retried as a client does (409 in use: after Retry-After) until accepted: within the key's
    // lease (5 s) of the kill, not after a stale-key timeout of 30 s.
    let answer = await send();
    await waitFor(
      async () => {
        if (answer.status !== 409) return true;
        await new Promise((r) => setTimeout(r, Number(answer.headers.get('retry-after') ?? 1) * 1000));
        answer = await send();
        return answer.status !== 409;
      },
      10_000,
      'the retry accepted',
      0,
    );
    expect(answer.status).toBe(201);
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.message.id).toBe(answer.body.message.id);
    const made = (await sql(`SELECT id FROM messages WHERE user_id = $1 AND idempotency_key = $2`, [
      user.userId,
      key,
    ])) as { id: string }[];
    expect(made.map((m) => m.id)).toEqual([answer.body.message.id]);
  });
});
