import { waitFor } from '@app/testing';
import { AppEntity } from '../../apps/api/src/wa-apps/app.entity';
import { TemplateSyncService } from '../../apps/api/src/templates/template-sync.service';
import { ApiFactory, TestUser } from '../support/factories';
import { Platform, startPlatform } from '../support/platform';
import { registerSandboxNumber } from '../support/sandbox';
import { Endpoint } from '../support/webhook-endpoint';
import { client } from '../../apps/api/test/support/http';

/**
 * Charges follow what the channel bills, through api, queue, sandbox (WhatsApp with per-message
 * pricing in its status callbacks), gateway and webhooks: a utility template inside the customer's
 * open window costs nothing, a marketing_lite status is charged the marketing_lite price, and a
 * template the channel re-categorises as MARKETING is priced and laned so from the next send on,
 * with template.updated to subscribers.
 */
describe('charges follow what the channel billed', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let user: TestUser;
  let app: AppEntity;
  let endpoint: Endpoint;

  let call: ReturnType<typeof client>;
  const api = (method: string, path: string, body?: unknown) => call(method, `/v1${path}`, { auth: user.auth, body });
  const sandbox = async (path: string, body: unknown) =>
    expect((await client(`${platform.urls.sandbox}/_sandbox/whatsapp/`)('POST', path, { body })).status).toBeLessThan(
      300,
    );
  const balance = async () => (await api('GET', `/users/${user.userId}/balances`)).body.balance as number;
  const template = async (name: string, category: string) => {
    const created = await api('POST', `/wa/apps/${app.id}/templates`, {
      name,
      language: 'en',
      category,
      body: 'Hello {{1}}',
      body_example: 'Hello Ana',
    });
    expect(created.status).toBe(201);
    await waitFor(
      async () =>
        (await api('GET', `/wa/apps/${app.id}/templates`)).body.find((t: { id: number }) => t.id === created.body.id)
          ?.status === 'APPROVED',
      20_000,
      `${name} approved`,
      100,
    );
    return created.body as { id: number; wa_id: string };
  };
  const send = async (phone: string, name: string) => {
    const res = await api('POST', `/wa/apps/${app.id}/messages`, {
      phone,
      type: 'TEMPLATE',
      template: { name, components: { body: { values: ['Ana'] } } },
    });
    expect(res.status).toBe(201);
    return res.body.message.id as string;
  };
  /** The message report once the message is charged. */
  const charged = (id: string) =>
    waitFor(
      async () => {
        const report = (await api('GET', `/wa/apps/${app.id}/messages/${id}`)).body;
        return report.charged !== null && report;
      },
      30_000,
      `${id} charged`,
      100,
    );
  const transaction = async (messageId: string) =>
    (
      await factory.dataSource.query(
        `SELECT amount::text, category, assumed_category, pricing_type FROM transactions WHERE message_id = $1`,
        [messageId],
      )
    )[0] as Record<string, string | null>;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'e2e-billed-pricing',
      services: ['api', 'gateway', 'queue', 'webhooks', 'sandbox'],
      env: {
        SANDBOX_STATUS_DELAY_MS: '50',
        SANDBOX_MODERATION_DELAY_MS: '100',
        TEMPLATE_SYNC_INTERVAL_MS: '0',
        WEBHOOK_POLL_INTERVAL_MS: '100',
      },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    call = client(`${platform.urls.api}/api`);
    user = await factory.user('system', { balance: 1 });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    endpoint = await new Endpoint().open();
    const sub = await api('POST', '/subscriptions', { url: endpoint.url(), events: ['template.updated'] });
    expect(sub.status).toBe(201);
    endpoint.secret = sub.body.secret;
  });

  afterAll(async () => {
    await endpoint?.close();
    await factory?.close();
    await platform?.stop();
  });

  it('a utility template to a customer whose window is open is captured at 0 and the balance shows it', async () => {
    await template('parcel_ready', 'UTILITY');
    const customer = '5511900000001';
    await sandbox('inbound', { phone_number_id: app.phoneNumberId, from: customer, text: 'Where is my parcel?' });
    const id = await send(customer, 'parcel_ready');
    expect(await charged(id)).toMatchObject({
      category: 'UTILITY',
      price: 0.02,
      billed_category: 'UTILITY',
      pricing_type: 'free_customer_service',
      charged: 0,
    });
    expect(await transaction(id)).toEqual({
      amount: '0.0000',
      category: 'UTILITY',
      assumed_category: 'UTILITY',
      pricing_type: 'free_customer_service',
    });
    expect(await balance()).toBe(1);
  });

  it('a marketing template the channel bills as marketing_lite is charged the marketing_lite price', async () => {
    await template('weekly_sale', 'MARKETING');
    const customer = '5511900000002';
    await sandbox('pricing', { to: customer, category: 'marketing_lite' });
    const before = await balance();
    const id = await send(customer, 'weekly_sale');
    expect(await charged(id)).toMatchObject({ category: 'MARKETING', price: 0.05, billed_category: 'MARKETING_LITE' });
    expect(await transaction(id)).toEqual({
      amount: '-0.0300',
      category: 'MARKETING_LITE',
      assumed_category: 'MARKETING',
      pricing_type: 'regular',
    });
    expect(await balance()).toBeCloseTo(before - 0.03, 4);
  });

  it('a template the channel re-categorises as MARKETING is priced and laned so from the next send; subscribers hear of it', async () => {
    const tpl = await template('order_status', 'UTILITY');
    const customer = '5511900000003';
    const first = await send(customer, 'order_status');
    expect(await charged(first)).toMatchObject({ category: 'UTILITY', billed_category: 'UTILITY', charged: 0.02 });

    await sandbox(`templates/${tpl.wa_id}/category`, { category: 'MARKETING' });
    const told = await waitFor(
      () => endpoint.events.find((e) => e.type === 'template.updated' && e.data.wa_id === tpl.wa_id),
      30_000,
      'template.updated at the endpoint',
      100,
    );
    expect(told).toMatchObject({
      app_id: app.id,
      data: { name: 'order_status', previous_category: 'UTILITY', category: 'MARKETING' },
    });
    await waitFor(
      async () =>
        (await api('GET', `/wa/apps/${app.id}/templates`)).body.find((t: { id: number }) => t.id === tpl.id)
          ?.category === 'MARKETING',
      20_000,
      'the template MARKETING in the api',
      100,
    );

    const before = await balance();
    const next = await send(customer, 'order_status');
    const [lane] = await factory.dataSource.query(
      `SELECT category, priority, price::text FROM messages WHERE id = $1`,
      [next],
    );
    expect(lane).toEqual({ category: 'MARKETING', priority: 'marketing', price: '0.0500' });
    expect(await charged(next)).toMatchObject({ category: 'MARKETING', billed_category: 'MARKETING', charged: 0.05 });
    expect(await balance()).toBeCloseTo(before - 0.05, 4);

    // The usage report counts cost by what was billed.
    const day = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const usage = await api('GET', `/users/${user.userId}/usage?from=${day}&to=${tomorrow}`);
    const cost = (category: string) =>
      Math.round(
        (usage.body.data as { category: string; cost: number }[])
          .filter((r) => r.category === category)
          .reduce((sum, r) => sum + r.cost, 0) * 10_000,
      ) / 10_000;
    expect([cost('UTILITY'), cost('MARKETING_LITE'), cost('MARKETING')]).toEqual([0.02, 0.03, 0.05]);
  });

  it('a category changed without a callback is found by the template sync, applied and told to subscribers', async () => {
    const tpl = await template('login_help', 'MARKETING');
    await sandbox(`templates/${tpl.wa_id}/category`, { category: 'UTILITY', callback: false });
    expect(await platform.apps.api!.get(TemplateSyncService).syncAll()).toBeGreaterThanOrEqual(1);
    const listed = (await api('GET', `/wa/apps/${app.id}/templates`)).body.find((t: { id: number }) => t.id === tpl.id);
    expect(listed.category).toBe('UTILITY');
    const told = await waitFor(
      () => endpoint.events.find((e) => e.type === 'template.updated' && e.data.wa_id === tpl.wa_id),
      30_000,
      'template.updated of the sync at the endpoint',
      100,
    );
    expect(told).toMatchObject({
      app_id: app.id,
      data: { template_id: tpl.id, previous_category: 'MARKETING', category: 'UTILITY', reason: 'sync' },
    });
    // A second pass finds nothing more to change or tell.
    await platform.apps.api!.get(TemplateSyncService).syncAll();
    await new Promise((r) => setTimeout(r, 500));
    expect(endpoint.events.filter((e) => e.type === 'template.updated' && e.data.wa_id === tpl.wa_id)).toHaveLength(1);
  });
});
