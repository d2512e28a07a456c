import { MessageReceivedData } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { eventsEventually, waitFor } from '@app/testing';
import { createDataSource } from '@app/database';
import { DataSource } from 'typeorm';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { registerSandboxNumber, sandboxOk } from '../../../test/support/sandbox';
import { gatewayClient } from '../../../test/support/campaigns';
import { whatsappRendering } from '../../../test/support/sandbox-renderings';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { gatewaySchema } from '../src/database/schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * WhatsApp Flows through every service: the linked app's Flows listed and published on the
 * emulated channel, a Flow sent in the window (interactive) and outside it (a template's FLOW
 * button), each submission joined to its message by the flow token, the delivery report saying
 * what was sent, and a COPY_CODE template sent with its coupon code.
 */
describe('WhatsApp Flows', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let clients: NatsClients;
  let gatewayDb: DataSource;
  let user: TestUser;
  let app: Awaited<ReturnType<ApiFactory['activeApp']>>;
  let token: string;
  let phoneNumberId: string;

  const call = async (path: string, body?: unknown) => {
    const res = await gatewayClient(platform.urls.gateway, token)(body === undefined ? 'GET' : 'POST', path, body);
    return { status: res.status, body: res.body };
  };
  const sandbox = (path: string, body?: unknown) => sandboxOk<Json>(platform.urls.sandbox, path, body);
  /** The wamid the emulator answered our message with. */
  const wamidOf = async (messageId: string): Promise<string> => {
    await whatsappRendering(platform.urls.sandbox, phoneNumberId, messageId);
    const sends = (await sandbox(`whatsapp/messages?phone_number_id=${phoneNumberId}`)) as unknown as Json[];
    return sends.find((s) => String(s.body?.biz_opaque_callback_data ?? '').startsWith(messageId))!.wamid as string;
  };
  const received = (match: (d: MessageReceivedData) => boolean) =>
    eventsEventually<MessageReceivedData>(clients, platform.infra.topology, 'message.received', match);
  const holds = async () =>
    (
      (await factory.dataSource.query(`SELECT count(*)::int AS n FROM holds WHERE user_id = $1`, [user.userId])) as {
        n: number;
      }[]
    )[0].n;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'gw-whatsapp-flows',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      env: { SANDBOX_STATUS_DELAY_MS: '50' },
    });
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'gw-whatsapp-flows-test' });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
    await gatewayDb.initialize();
    user = await factory.user('system', { balance: 10 });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    phoneNumberId = String(app.phoneNumberId);
    await registerSandboxNumber(platform.urls.sandbox, app);
    token = (await new AccountsRepository(gatewayDb).createAccount('flows', user.userId)).token;
  });

  afterAll(async () => {
    await clients?.drain();
    await gatewayDb?.destroy();
    await factory?.close();
    await platform?.stop();
  });

  it('without a linked WhatsApp app there are no Flows to list (422)', async () => {
    const res = await call('/v1/flows');
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ type: expect.stringContaining('no-whatsapp-app') });
    expect((await call('/v1/connections', { channel: 'whatsapp', app_id: app.id })).status).toBe(201);
  });

  it("lists the linked app's Flows a page at a time and publishes a draft once", async () => {
    const made: Json[] = [];
    for (const name of ['booking', 'survey', 'signup']) {
      made.push(await sandbox('whatsapp/flows', { waba_id: app.wabaId, name, categories: ['APPOINTMENT_BOOKING'] }));
    }
    // Another business's Flow is never listed, nor published.
    const elsewhere = await sandbox('whatsapp/flows', { waba_id: '999000111', name: 'elsewhere' });

    const first = await call('/v1/flows?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual([
      { id: made[0].id, name: 'booking', status: 'DRAFT', categories: ['APPOINTMENT_BOOKING'] },
      { id: made[1].id, name: 'survey', status: 'DRAFT', categories: ['APPOINTMENT_BOOKING'] },
    ]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await call(`/v1/flows?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body).toEqual({ data: [expect.objectContaining({ name: 'signup' })], next_cursor: null });

    const published = await call(`/v1/flows/${made[0].id}/publish`, {});
    expect(published).toEqual({ status: 200, body: { id: made[0].id, status: 'PUBLISHED' } });
    expect((await call('/v1/flows?limit=1')).body.data[0]).toMatchObject({ id: made[0].id, status: 'PUBLISHED' });

    // A published or deprecated Flow cannot be published (again): the channel's refusal, with its code.
    const again = await call(`/v1/flows/${made[0].id}/publish`, {});
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ type: expect.stringContaining('flow-rejected-by-channel'), code: '139002' });
    await sandbox(`whatsapp/flows/${made[1].id}/deprecate`, {});
    expect((await call(`/v1/flows/${made[1].id}/publish`, {})).status).toBe(400);
    // An unknown Flow, or another business's, is not found; a malformed id never reaches the channel.
    expect((await call('/v1/flows/123456789/publish', {})).status).toBe(404);
    expect((await call(`/v1/flows/${elsewhere.id}/publish`, {})).status).toBe(404);
    expect(((await sandbox('whatsapp/flows')) as unknown as Json[]).find((f) => f.id === elsewhere.id)).toMatchObject({
      status: 'DRAFT',
    });
    const malformed = await call('/v1/flows/abc/publish', {});
    expect([malformed.status, malformed.body.errors?.map((e: Json) => e.field)]).toEqual([400, ['id']]);
    expect((await call('/v1/flows?limit=0')).status).toBe(400);
  });

  it('a Flow sent in the window is answered back joined to its message; the report says it went as a Flow', async () => {
    const customer = '5511987652001';
    await factory.openConversation(app.id, customer);
    const sent = await call('/v1/messages', {
      channel: 'whatsapp',
      to: customer,
      content: { type: 'flow', text: 'Book a table', flow_id: '1234567890', cta: 'Book' },
    });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ rendered_as: 'flow', flow_token: expect.stringMatching(/^ft_/) });
    const wamid = await wamidOf(sent.body.id);

    const done = await sandbox('whatsapp/flows/complete', { message_id: wamid, response: { party: '4' } });
    expect(done.flow_token).toBe(sent.body.flow_token);
    const [event] = await received((d) => d.provider_message_id === done.id);
    expect(event.data.content.reply).toEqual({
      kind: 'flow',
      id: 'flow',
      title: 'Sent',
      payload: { party: '4', flow_token: sent.body.flow_token },
      context_message_id: sent.body.id,
    });

    // The customer's thread shows the answer, pointing at the Flow message.
    const inThread = await waitFor(
      async () => {
        for (const c of (await call('/v1/conversations?channel=whatsapp')).body.data as Json[]) {
          const messages = (await call(`/v1/conversations/${c.id}/messages`)).body.data as Json[];
          const answer = messages.find((m) => m.content?.reply?.kind === 'flow');
          if (answer) return answer;
        }
        return false;
      },
      20_000,
      'the Flow answer in the conversation',
      250,
    );
    expect(inThread.content.reply).toMatchObject({ context_message_id: sent.body.id, payload: { party: '4' } });

    const report = await call(`/v1/messages/${sent.body.id}`);
    expect(report.body).toMatchObject({ id: sent.body.id, rendered_as: 'flow' });
    const rows = (await call('/v1/messages?channel=whatsapp')).body.data as Json[];
    expect(rows.find((r) => r.id === sent.body.id)).toMatchObject({ rendered_as: 'flow' });
  });

  it('outside the window a template FLOW button carries the token; its answer is joined the same way', async () => {
    const customer = '5511987652002';
    const template = await factory.sendableTemplate(app.id, {
      name: 'book_table',
      body: 'Hello {{1}}, book your table.',
      buttons: [{ type: 'FLOW', text: 'Book now', flow_id: '1234567890', flow_action: 'navigate' }],
    });
    const sent = await call('/v1/messages', {
      channel: 'whatsapp',
      to: customer,
      template: template.name,
      params: ['Ann'],
    });
    expect(sent.status).toBe(202);
    expect(sent.body.flow_token).toMatch(/^ft_/);
    const body = await whatsappRendering(platform.urls.sandbox, phoneNumberId, sent.body.id);
    expect(body.template.components).toContainEqual({
      type: 'button',
      sub_type: 'flow',
      index: '0',
      parameters: [{ type: 'action', action: { flow_token: sent.body.flow_token } }],
    });

    const done = await sandbox('whatsapp/flows/complete', { message_id: await wamidOf(sent.body.id) });
    const [event] = await received((d) => d.provider_message_id === done.id);
    expect(event.data.content.reply).toMatchObject({ kind: 'flow', context_message_id: sent.body.id });
    // A template send is no content send: the report names nothing rendered.
    expect((await call(`/v1/messages/${sent.body.id}`)).body).toMatchObject({ rendered_as: null });

    // A Flow answer with a token the platform never made stays as the channel sent it.
    await sandbox('whatsapp/inbound', {
      phone_number_id: phoneNumberId,
      from: customer,
      kind: 'flow',
      text: JSON.stringify({ flow_token: 'ft_AAAAAAAAAAAAAAAAAAAAAA' }),
      context_message_id: 'wamid.unknown',
    });
    const [unknown] = await received((d) => JSON.stringify(d.content.reply?.payload ?? '').includes('ft_AAAA'));
    expect(unknown.data.content.reply?.context_message_id).toBe('wamid.unknown');
  });

  it('a COPY_CODE template is sent with its coupon code; a missing or too long coupon is refused before any hold', async () => {
    const customer = '5511987652003';
    const template = await factory.sendableTemplate(app.id, {
      name: 'autumn_sale',
      category: 'MARKETING',
      body: 'Take {{1}} off with your code.',
      buttons: [{ type: 'COPY_CODE', text: 'Copy offer code', example: 'AUTUMN25' }],
    });
    const before = await holds();
    const send = (extra: Json) =>
      call('/v1/messages', { channel: 'whatsapp', to: customer, template: template.name, params: ['25%'], ...extra });
    const fields = (res: { status: number; body: Json }) => [res.status, res.body.errors?.map((e: Json) => e.field)];
    expect(fields(await send({}))).toEqual([400, ['coupon_code']]);
    expect(fields(await send({ coupon_code: 'X'.repeat(16) }))).toEqual([400, ['coupon_code']]);
    const other = await factory.sendableTemplate(app.id, { name: 'plain_note', body: 'Hi {{1}}' });
    expect(
      fields(
        await call('/v1/messages', {
          channel: 'whatsapp',
          to: customer,
          template: other.name,
          params: ['a'],
          coupon_code: 'A1',
        }),
      ),
    ).toEqual([400, ['coupon_code']]);
    expect(await holds()).toBe(before);

    const sent = await send({ coupon_code: 'AUTUMN25' });
    expect(sent.status).toBe(202);
    expect(sent.body.flow_token).toBeUndefined();
    const body = await whatsappRendering(platform.urls.sandbox, phoneNumberId, sent.body.id);
    expect(body.template.components).toContainEqual({
      type: 'button',
      sub_type: 'copy_code',
      index: '0',
      parameters: [{ type: 'coupon_code', coupon_code: 'AUTUMN25' }],
    });
  });
});
