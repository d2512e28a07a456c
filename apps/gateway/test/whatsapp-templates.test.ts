import {
  newMessageId,
  RpcRequest,
  RpcResult,
  RpcSubject,
  SubmitTemplateReply,
  SubmitTemplateRequest,
  TemplateStatusData,
  TemplateSubmission,
  WHATSAPP_RPC,
} from '@app/contracts';
import { WhatsAppConnector } from '@app/channels';
import { NatsClients, RpcClient } from '@app/messaging';
import { rpcProblem, waitFor } from '@app/testing';
import { Platform, startPlatform } from '../../../test/support/platform';
import { eventsOf } from './support/whatsapp';

const connection = { waba_id: '3000001', phone_number_id: '1000009' };

const orderUpdate: TemplateSubmission = {
  name: 'order_update',
  language: 'en',
  category: 'UTILITY',
  type: 'TEXT',
  header: { text: 'Order {{1}}', example: 'Order 42' },
  body: { text: 'Hello {{1}}, your order ships on {{2}}.', example: 'Hello Anna, your order ships on Monday.' },
  footer: 'Thank you',
  buttons: [
    { type: 'URL', text: 'Track', url: 'https://shop.example.com/t/{{1}}', example: 'https://shop.example.com/t/42' },
  ],
};

describe('WhatsApp template management over request/reply', () => {
  let platform: Platform;
  let clients: NatsClients;
  let rpc: RpcClient;

  const statusEvents = (waId: string) =>
    eventsOf<TemplateStatusData>(clients, platform.infra.topology, 'template.status_changed', (d) => d.wa_id === waId);

  const call = <S extends RpcSubject>(subject: S, request: RpcRequest<S>): Promise<RpcResult<S>> =>
    rpc.call(subject, request, { timeoutMs: 8000 });

  const submit = (template: TemplateSubmission): Promise<SubmitTemplateReply> =>
    call(WHATSAPP_RPC.submitTemplate, { connection, template });

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'wa-templates',
      // The api answers whose the WABA of moderation callbacks is (no app owns this one).
      services: ['api', 'gateway', 'sandbox'],
      env: { SANDBOX_MODERATION_DELAY_MS: '150', SANDBOX_STATUS_DELAY_MS: '20' },
    });
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'wa-templates-test' });
    rpc = new RpcClient({ url: platform.infra.natsUrl, prefix: platform.infra.prefix, name: 'wa-templates-test' });
  });

  afterAll(async () => {
    await rpc?.onApplicationShutdown();
    await clients?.drain();
    await platform?.stop();
  });

  it('submits a template: PENDING on the channel, then template.status_changed APPROVED', async () => {
    const reply = await submit(orderUpdate);
    expect(reply).toEqual({ wa_id: expect.stringMatching(/^\d+$/), status: 'PENDING' });

    const res = await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/templates`);
    const stored = (await res.json()) as { id: string; components: unknown[] }[];
    const mine = stored.find((t) => t.id === reply.wa_id);
    expect(mine).toMatchObject({ status: 'PENDING', waba_id: connection.waba_id, category: 'UTILITY' });
    expect(mine?.components).toContainEqual({
      type: 'BODY',
      text: 'Hello {{1}}, your order ships on {{2}}.',
      example: { body_text: [['Anna', 'Monday']] },
    });

    const [event] = await waitFor(
      async () => {
        const e = await statusEvents(reply.wa_id);
        return e.length > 0 && e;
      },
      30_000,
      'template.status_changed',
    );
    expect(event).toMatchObject({ channel: 'whatsapp', app_id: null });
    expect(event.data).toMatchObject({
      waba_id: connection.waba_id,
      wa_id: reply.wa_id,
      name: 'order_update',
      language: 'en',
      status: 'APPROVED',
      reason: null,
    });
  });

  it('a body with the REJECTME marker is REJECTED with its reason; an edit gets it approved', async () => {
    const bad = {
      ...orderUpdate,
      name: 'promo_bad',
      body: { text: 'Buy now REJECTME {{1}}', example: 'Buy now REJECTME 5' },
    };
    const reply = await submit(bad);
    const [rejected] = await waitFor(
      async () => {
        const e = await statusEvents(reply.wa_id);
        return e.length > 0 && e;
      },
      30_000,
      'rejection',
    );
    expect(rejected.data).toMatchObject({
      status: 'REJECTED',
      reason: { code: 'INVALID_FORMAT', message: expect.stringContaining('REJECTME') },
    });

    const edit = await call(WHATSAPP_RPC.updateTemplate, {
      connection,
      wa_id: reply.wa_id,
      template: { ...bad, body: { text: 'Buy now {{1}}', example: 'Buy now 5' } },
    });
    expect(edit).toEqual({ status: 'PENDING' });
    const events = await waitFor(
      async () => {
        const e = await statusEvents(reply.wa_id);
        return e.length > 1 && e;
      },
      30_000,
      'approval after edit',
    );
    expect(events.map((e) => e.data.status)).toEqual(['REJECTED', 'APPROVED']);
  });

  it('lists the WABA templates with status and quality, and deletes one', async () => {
    const listed = await call(WHATSAPP_RPC.listTemplates, { connection });
    const byName = Object.fromEntries(listed.templates.map((t) => [t.name, t]));
    expect(byName.order_update).toMatchObject({
      status: 'APPROVED',
      quality: 'GREEN',
      category: 'UTILITY',
      language: 'en',
    });
    expect(byName.promo_bad).toMatchObject({ status: 'APPROVED' });

    const del = await call(WHATSAPP_RPC.deleteTemplate, {
      connection,
      wa_id: byName.promo_bad.wa_id,
      name: 'promo_bad',
    });
    expect(del).toEqual({ deleted: true });
    const after = await call(WHATSAPP_RPC.listTemplates, { connection });
    expect(after.templates.map((t) => t.name)).toEqual(['order_update']);
  });

  it('answers a refusal as a 400 problem with the Graph code', async () => {
    const dup = await rpcProblem(submit(orderUpdate));
    expect(dup).toMatchObject({
      status: 400,
      slug: 'template-rejected-by-channel',
      code: '100',
      detail: expect.stringContaining('already exists'),
    });
    const bad = await rpcProblem(
      call(WHATSAPP_RPC.submitTemplate, { connection: {}, template: orderUpdate } as unknown as SubmitTemplateRequest),
    );
    expect(bad).toMatchObject({ status: 400, code: 'invalid_request' });
  });

  it('answers an outage of the channel as a 503 problem', async () => {
    const set = await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ mode: '500', scope: 'templates', count: 1 }),
    });
    expect(set.status).toBe(201);
    const problem = await rpcProblem(call(WHATSAPP_RPC.listTemplates, { connection }));
    expect(problem).toMatchObject({ status: 503, slug: 'service-unavailable', code: '131000' });
  });

  it('the channel checks sends against an approved template: a wrong parameter count is final', async () => {
    const connector = new WhatsAppConnector({ graphUrl: platform.urls.sandbox, accessToken: 'sandbox-access-token' });
    const base = {
      id: newMessageId(),
      channel: 'whatsapp' as const,
      priority: 'service' as const,
      category: 'UTILITY' as const,
      user_id: 'u',
      app_id: 1,
      sender: { connection_id: connection.phone_number_id, waba_id: connection.waba_id },
      recipient: '79990001122',
      kind: 'TEMPLATE' as const,
      queued_at: Date.now(),
    };
    const good = await connector.send({
      ...base,
      content: {
        template: {
          name: 'order_update',
          language: 'en',
          header_values: ['42'],
          body_values: ['Anna', 'Monday'],
          buttons: [{ index: 0, type: 'URL', values: ['42'] }],
        },
      },
    });
    expect(good).toMatchObject({ ok: true });
    const wrong = await connector.send({
      ...base,
      id: newMessageId(),
      content: { template: { name: 'order_update', language: 'en', header_values: ['42'], body_values: ['Anna'] } },
    });
    expect(wrong).toMatchObject({ ok: false, retryable: false, code: '132000' });
  });
});
