import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { client, expectProblem } from './support/http';

/** The messaging tier at its edge: exact under concurrency and as recipients leave the 24-hour window. */
describe('messaging tier window', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let call: ReturnType<typeof client>;
  let user: TestUser;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'messages-tier',
      services: ['api'],
      env: { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000', HOUSEKEEPING_INTERVAL_MS: '0' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    call = client(`${platform.urls.api}/api`);
    user = await factory.user('system', { balance: 100 });
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  const sql = (query: string, params: unknown[] = []) => factory.dataSource.query(query, params);
  const phone = (i: number) => `4471${String(i).padStart(7, '0')}`;
  const tieredApp = async () => {
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_50' });
    await factory.sendableTemplate(app.id, { name: 'tier_tpl', body: 'Hi' });
    return app;
  };
  const send = (appId: number, to: string) =>
    call('POST', `/v1/wa/apps/${appId}/messages`, {
      auth: user.auth,
      body: { phone: to, type: 'TEMPLATE', template: { name: 'tier_tpl' } },
    });

  it('80 concurrent new recipients and repeats on TIER_50: exactly 50 recipients pass, repeats of them too', async () => {
    const app = await tieredApp();
    const results = await Promise.all([
      ...Array.from({ length: 80 }, (_, i) => send(app.id, phone(i))),
      ...Array.from({ length: 10 }, () => send(app.id, phone(0))),
    ]);
    const accepted = results.filter((r) => r.status === 201).length;
    const refused = results.filter((r) => r.status === 429);
    for (const r of refused) expectProblem(r, 429, '/problems/messaging-tier-exceeded');
    expect(accepted + refused.length).toBe(90);
    const [{ recipients }] = await sql(
      `SELECT count(DISTINCT recipient)::int AS recipients FROM messages WHERE app_id = $1 AND status <> 'FAILED'`,
      [app.id],
    );
    expect(recipients).toBe(50);
    const [usage] = await sql(`SELECT recipients FROM tier_usage WHERE app_id = $1`, [app.id]);
    expect(usage.recipients).toBe(50);
    // The repeats of a recipient that got in passed; nothing was held for a refused send.
    const [{ held }] = await sql(
      `SELECT count(*)::int AS held FROM holds h JOIN messages m ON m.id = h.message_id WHERE m.app_id = $1`,
      [app.id],
    );
    expect(held).toBe(accepted);
  });

  it('recipients past 24 hours free the tier at once; Retry-After counts down to the oldest live one', async () => {
    const app = await tieredApp();
    // 49 recipients from 25 hours ago (out of the window, still counted until swept) and one from 23h59m ago.
    await sql(
      `INSERT INTO tier_recipients (app_id, recipient, first_sent_at, last_sent_at)
       SELECT $1, '4472' || lpad(g::text, 7, '0'), now() - interval '25 hours', now() - interval '25 hours'
       FROM generate_series(1, 49) g`,
      [app.id],
    );
    await sql(
      `INSERT INTO tier_recipients (app_id, recipient, first_sent_at, last_sent_at)
       VALUES ($1, '44739999999', now() - interval '23 hours 59 minutes', now() - interval '23 hours 59 minutes')`,
      [app.id],
    );
    await sql(`INSERT INTO tier_usage (app_id, recipients) VALUES ($1, 50)`, [app.id]);

    // The counter says full; the window has one live recipient: 49 new ones pass.
    for (let i = 0; i < 49; i++) expect((await send(app.id, phone(1000 + i))).status).toBe(201);
    const [usage] = await sql(`SELECT recipients FROM tier_usage WHERE app_id = $1`, [app.id]);
    expect(usage.recipients).toBe(50);
    // A recipient whose last template left the window counts as new again.
    const over = await send(app.id, '44720000001');
    const problem = expectProblem(over, 429, '/problems/messaging-tier-exceeded');
    expect(problem.detail).toContain('TIER_50');
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The live recipient repeats freely.
    expect((await send(app.id, '44739999999')).status).toBe(201);
  });
});
