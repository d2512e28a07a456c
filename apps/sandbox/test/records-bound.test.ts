import { waitFor } from '@app/testing';
import { Platform, startPlatform } from '../../../test/support/platform';
import { registerSandboxBot } from '../../../test/support/sandbox';

const KEPT = 50;
const SENDS = 200;
const PHONE_NUMBER_ID = '1000077';

/**
 * The sandbox keeps a window of its most recent records (SANDBOX_RECORDS_MAX), so that hours of
 * load cannot exhaust its heap: driven far past the window it still answers, lists the most recent
 * records only, and counts every one.
 */
describe('the sandbox past its records window', () => {
  let platform: Platform;
  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${platform.urls.sandbox}${path}`);
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  };

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'sandbox-records-bound',
      services: ['sandbox'],
      env: {
        SANDBOX_RECORDS_MAX: String(KEPT),
        SANDBOX_STATUS_DELAY_MS: '0',
        // No gateway runs: each status callback is tried once and given up.
        SANDBOX_WEBHOOK_RETRY_FOR_MS: '0',
      },
    });
    const reg = await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/phone_numbers`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ phone_number_id: PHONE_NUMBER_ID, waba_id: '2000077' }),
    });
    expect(reg.status).toBe(201);
  });

  afterAll(async () => {
    await platform?.stop();
  });

  it('lists the most recent WhatsApp sends and webhooks, counts them all, and still answers', async () => {
    for (let i = 0; i < SENDS; i++) {
      const res = await fetch(`${platform.urls.sandbox}/v21.0/${PHONE_NUMBER_ID}/messages`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sandbox-access-token' },
        body: JSON.stringify({
          messaging_product: 'whatsapp',
          to: `7999${String(i).padStart(7, '0')}`,
          type: 'text',
          text: { body: 'hi' },
        }),
      });
      expect(res.status).toBe(200);
    }
    const sends = await get<{ seq: number }[]>('/_sandbox/whatsapp/messages');
    expect(sends.map((s) => s.seq)).toEqual(Array.from({ length: KEPT }, (_, i) => SENDS - KEPT + 1 + i));
    const [arrivals] = await get<{ phone_number_id: string; count: number }[]>(
      `/_sandbox/whatsapp/arrivals?phone_number_id=${PHONE_NUMBER_ID}`,
    );
    expect(arrivals).toMatchObject({ phone_number_id: PHONE_NUMBER_ID, count: SENDS });
    // Three status callbacks per send (sent, delivered, read), grouped when they queue up.
    const records = await waitFor(
      async () => {
        const r = await get<{
          kept_at_most: number;
          messages: { total: number; kept: number };
          webhooks: { total: number; kept: number; attempts: number };
        }>('/_sandbox/whatsapp/records');
        return r.webhooks.total > 2 * KEPT ? r : false;
      },
      30_000,
      'status callbacks past the window',
      100,
    );
    expect(records).toMatchObject({
      kept_at_most: KEPT,
      messages: { total: SENDS, kept: KEPT },
      webhooks: { kept: KEPT },
    });
    expect(records.webhooks.attempts).toBeGreaterThanOrEqual(records.webhooks.total);
    expect(await get<unknown[]>('/_sandbox/whatsapp/webhooks')).toHaveLength(KEPT);
  });

  it('keeps the most recent calls of a bot API', async () => {
    const bot = await registerSandboxBot(platform.urls.sandbox, 'telegram');
    for (let i = 0; i < KEPT + 30; i++) {
      const sent = await fetch(`${platform.urls.sandbox}/telegram/bot${bot.token}/sendMessage`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ chat_id: 5550001 + i, text: `note ${i}` }),
      });
      expect(sent.status).toBe(200);
    }
    const calls = await get<{ seq: number }[]>('/_sandbox/telegram/calls');
    expect(calls).toHaveLength(KEPT);
    expect(calls[calls.length - 1].seq).toBe(KEPT + 30);
  });
});
