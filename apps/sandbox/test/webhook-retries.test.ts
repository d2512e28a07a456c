import { EventEnvelope, MessageStatusData, newMessageId } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { readEvents, waitFor } from '@app/testing';
import { Platform, startPlatform } from '../../../test/support/platform';
import { sandboxWebhooks, statusesCarried } from '../../../test/support/sandbox';

const PHONE_NUMBER_ID = '1000002';
const WABA_ID = '2000002';
const MESSAGES = 4;

/** A gateway outage as the real channel would see it: callbacks wait for the gateway, none is lost. */
describe('sandbox status callbacks while the gateway is down', () => {
  let platform: Platform;
  let clients: NatsClients;
  const webhooks = () => sandboxWebhooks(platform.urls.sandbox);

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'wa-sandbox-retries',
      services: ['api', 'gateway', 'sandbox'],
      env: {
        SANDBOX_STATUS_DELAY_MS: '20',
        SANDBOX_WEBHOOK_RETRY_FIRST_DELAY_MS: '100',
        SANDBOX_WEBHOOK_RETRY_MAX_DELAY_MS: '400',
        SANDBOX_WEBHOOK_RETRY_FOR_MS: '60000',
      },
    });
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'wa-sandbox-retries-test' });
    const reg = await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/phone_numbers`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ phone_number_id: PHONE_NUMBER_ID, waba_id: WABA_ID }),
    });
    expect(reg.status).toBe(201);
  });

  afterAll(async () => {
    await clients?.drain();
    await platform?.stop();
  });

  it('keeps retrying until the gateway is back, then every status of every message arrives once', async () => {
    await platform.stopService('gateway');
    const sent: string[] = [];
    for (let i = 0; i < MESSAGES; i++) {
      // A Graph send as the connector makes it: our id comes back in the status callbacks.
      const id = newMessageId();
      const res = await fetch(`${platform.urls.sandbox}/v21.0/${PHONE_NUMBER_ID}/messages`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sandbox-access-token' },
        body: JSON.stringify({
          messaging_product: 'whatsapp',
          to: `799900055${i}5`,
          type: 'text',
          text: { body: `hello ${i}` },
          biz_opaque_callback_data: id,
        }),
      });
      expect(res.status).toBe(200);
      sent.push(id);
    }
    // Well past the old schedule (5 tries in about 3 s): the first callbacks are still being retried.
    await waitFor(
      async () => (await webhooks()).some((w) => w.attempts >= 8),
      20_000,
      'a callback retried 8 times while the gateway is down',
      100,
    );
    const pending = await webhooks();
    expect(pending.length).toBeGreaterThanOrEqual(MESSAGES);
    for (const w of pending) {
      expect(w).toMatchObject({ delivered: false, status: null, next_attempt_at: expect.any(Number) });
    }

    await platform.startService('gateway');
    const statusesOf = async (id: string) =>
      ((await readEvents(clients, platform.infra.topology)) as unknown as EventEnvelope<MessageStatusData>[])
        .filter((e) => e.type.startsWith('message.') && e.data.message_id === id)
        .map((e) => e.type);
    for (const id of sent) {
      await waitFor(async () => (await statusesOf(id)).length >= 3, 30_000, `sent, delivered and read of ${id}`, 200);
      expect((await statusesOf(id)).sort()).toEqual(['message.delivered', 'message.read', 'message.sent']);
    }
    const log = await webhooks();
    expect(log.filter((w) => !w.delivered)).toEqual([]);
    // Every status was carried once, alone or gathered with others.
    expect(log.filter((w) => w.field === 'messages').reduce((n, w) => n + statusesCarried(w), 0)).toBe(MESSAGES * 3);
  });
});
