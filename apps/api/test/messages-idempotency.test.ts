import { Topology } from '@app/contracts';
import { NatsClients, pullNoWait } from '@app/messaging';
import { AppEntity } from '../src/wa-apps/app.entity';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { client, errorFields, expectProblem } from './support/http';

/** Idempotency-Key on sends: a repeat returns the first answer, never a second message or charge. */
describe('Idempotency-Key on POST messages', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let nats: NatsClients;
  let topology: Topology;
  let sys: TestUser;
  let app: AppEntity;
  let call: ReturnType<typeof client>;
  const body = {
    phone: '79990001122',
    type: 'TEMPLATE',
    template: { name: 'receipt', components: { body: { values: ['12.50'] } } },
  };
  const send = (key: string | undefined, payload: unknown = body) =>
    call('POST', `/v1/wa/apps/${app.id}/messages`, {
      auth: sys.auth,
      body: payload,
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });
  const messageCount = async () =>
    (await factory.dataSource.query(`SELECT count(*)::int AS n FROM messages WHERE user_id = $1`, [sys.userId]))[0]
      .n as number;
  const available = async () =>
    Number(
      (await factory.dataSource.query(`SELECT available FROM balances WHERE user_id = $1`, [sys.userId]))[0].available,
    );
  /** A key as a request still in progress (or whose process died) leaves it, claimed `secondsAgo`. */
  const leaveInProgress = (key: string, secondsAgo: number) =>
    factory.dataSource.query(
      `UPDATE idempotency_keys SET state = 'PENDING', response_status = NULL, response_body = NULL,
              created_at = now() - make_interval(secs => $3) WHERE user_id = $1 AND key = $2`,
      [sys.userId, key, secondsAgo],
    );
  const queuedIds = async () => {
    const pulled = await pullNoWait(
      nats.nc,
      topology.outboundStream('service'),
      topology.outboundConsumer('service', 'whatsapp'),
      100,
    );
    for (const m of pulled) await m.ack();
    return pulled.map((m) => m.msgId);
  };

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'messages-idempotency',
      services: ['api'],
      env: { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' },
    });
    topology = platform.infra.topology;
    nats = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'idempotency-test' });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system', { balance: 1 });
    app = await factory.activeApp(sys.userId, { message_limit: 'TIER_UNLIMITED' });
    await factory.sendableTemplate(app.id, { name: 'receipt', category: 'UTILITY', body: 'Paid {{1}}' });
    call = client(`${platform.urls.api}/api`);
  });

  afterAll(async () => {
    await nats?.drain();
    await factory?.close();
    await platform?.stop();
  });

  it('a replay returns the first answer with Idempotent-Replayed, without a second message or hold', async () => {
    const first = await send('order-1001');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const afterFirst = await available();
    const again = await send('order-1001', { ...body, template: { ...body.template } });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The same body with its keys in another order is the same request.
    const reordered = await send('order-1001', { template: body.template, type: 'TEMPLATE', phone: body.phone });
    expect(reordered.body).toEqual(first.body);
    expect(await messageCount()).toBe(1);
    expect(await available()).toBe(afterFirst);
    expect(await queuedIds()).toEqual([first.body.message.id]);
  });

  it('the same key with a different body: 422 idempotency-key-reuse', async () => {
    await send('order-2002');
    const res = await send('order-2002', { ...body, phone: '79990001133' });
    expectProblem(res, 422, '/problems/idempotency-key-reuse');
    await queuedIds();
  });

  it('keys belong to their user: another tenant may use the same key', async () => {
    const other = await factory.user('system', { balance: 1 });
    const otherApp = await factory.activeApp(other.userId, { message_limit: 'TIER_UNLIMITED' });
    await factory.sendableTemplate(otherApp.id, { name: 'receipt', category: 'UTILITY', body: 'Paid {{1}}' });
    const mine = await send('shared-key');
    const theirs = await call('POST', `/v1/wa/apps/${otherApp.id}/messages`, {
      auth: other.auth,
      body,
      headers: { 'idempotency-key': 'shared-key' },
    });
    expect(theirs.status).toBe(201);
    expect(theirs.body.message.id).not.toBe(mine.body.message.id);
    await queuedIds();
  });

  it('concurrent duplicates create one message: the others replay it or are told to retry', async () => {
    const before = await messageCount();
    const results = await Promise.all(Array.from({ length: 10 }, () => send('order-3003')));
    expect(await messageCount()).toBe(before + 1);
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.message.id)).size).toBe(1);
    for (const r of results.filter((x) => x.status !== 201)) {
      expectProblem(r, 409, '/problems/idempotency-key-in-use');
      expect(r.headers.get('retry-after')).toBe('1');
    }
    const settled = await send('order-3003');
    expect(settled.body).toEqual(created[0].body);
    await queuedIds();
  });

  it('a request that fails keeps no answer: after a top-up the same key sends', async () => {
    const poor = await factory.user('system', { balance: 0.01 });
    const poorApp = await factory.activeApp(poor.userId, { message_limit: 'TIER_UNLIMITED' });
    await factory.sendableTemplate(poorApp.id, { name: 'receipt', category: 'UTILITY', body: 'Paid {{1}}' });
    const attempt = () =>
      call('POST', `/v1/wa/apps/${poorApp.id}/messages`, {
        auth: poor.auth,
        body,
        headers: { 'idempotency-key': 'retry-me' },
      });
    expectProblem(await attempt(), 422, '/problems/insufficient-balance');
    await factory.dataSource.query(`UPDATE balances SET available = 1 WHERE user_id = $1`, [poor.userId]);
    const ok = await attempt();
    expect(ok.status).toBe(201);
    expect((await attempt()).body).toEqual(ok.body);
    await queuedIds();
  });

  it('a key left in progress by a request whose process died: the send it committed is answered, never sent again', async () => {
    const committed = await send('crash-1');
    expect(committed.status).toBe(201);
    // As a kill between the commit and the answer leaves it: the key in progress, the message committed.
    await leaveInProgress('crash-1', 300);
    const before = await messageCount();
    const retry = await send('crash-1');
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(committed.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await messageCount()).toBe(before);
    await queuedIds();
  });

  it('a key left in progress by a request that died before committing: the retry sends, once', async () => {
    const firstId = (await send('crash-2')).body.message.id as string;
    // The key of a request that never committed: no message carries it.
    await factory.dataSource.query(`UPDATE messages SET idempotency_key = NULL WHERE id = $1`, [firstId]);
    await leaveInProgress('crash-2', 300);
    const before = await messageCount();
    const retry = await send('crash-2');
    expect(retry.status).toBe(201);
    expect(retry.body.message.id).not.toBe(firstId);
    expect(await messageCount()).toBe(before + 1);
    expect((await send('crash-2')).body).toEqual(retry.body);
    await queuedIds();
  });

  it('a key in progress for less than the stale time is still answered 409', async () => {
    await send('busy-1');
    await leaveInProgress('busy-1', 0);
    expectProblem(await send('busy-1'), 409, '/problems/idempotency-key-in-use');
    await queuedIds();
  });

  it('the key must be 1 to 255 printable characters', async () => {
    expect((await send('k'.repeat(255))).status).toBe(201);
    const long = await send('k'.repeat(256));
    expectProblem(long, 400, '/problems/validation-error');
    expect(errorFields(long)).toEqual(['Idempotency-Key']);
    expect(errorFields(await send(''))).toEqual(['Idempotency-Key']);
    expect(errorFields(await send('tab\there'))).toEqual(['Idempotency-Key']);
    await queuedIds();
  });
});
