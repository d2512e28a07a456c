import { waitFor } from '@app/testing';
import { sandboxControl } from './sandbox';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The methods of the emulated bot APIs that send a message. */
const BOT_SENDS = /^(sendMessage|sendPhoto|sendVideo|sendAudio|sendDocument|messages)$/;

/**
 * The request body the WhatsApp emulator accepted for our message (its `biz_opaque_callback_data`
 * names the message), once it has arrived.
 */
export function whatsappRendering(sandboxUrl: string, phoneNumberId: string, messageId: string): Promise<Json> {
  return waitFor(
    async () => {
      const sends = (await sandboxControl<Json[]>(sandboxUrl, `whatsapp/messages?phone_number_id=${phoneNumberId}`))
        .body;
      const sent = sends.find((s) => String(s.body?.biz_opaque_callback_data ?? '').startsWith(messageId));
      return sent ? (sent.body as Json) : false;
    },
    20_000,
    `the WhatsApp send of ${messageId}`,
    100,
  );
}

/**
 * The last send call a bot emulator (Telegram or MAX) accepted for a recipient (Telegram's
 * `chat_id`, MAX's `user_id`), with its method and parameters as the API received them.
 */
export function botRendering(
  sandboxUrl: string,
  channel: 'telegram' | 'max',
  botId: number,
  recipient: string,
): Promise<{ method: string; params: Json }> {
  return waitFor(
    async () => {
      const calls = (await sandboxControl<Json[]>(sandboxUrl, `${channel}/calls?bot_id=${botId}`)).body;
      const mine = calls.filter(
        (c) => BOT_SENDS.test(c.method) && String(c.params.chat_id ?? c.params.user_id) === recipient,
      );
      const last = mine[mine.length - 1];
      return last ? { method: String(last.method), params: last.params as Json } : false;
    },
    20_000,
    `the ${channel} send to ${recipient}`,
    100,
  );
}

/** The calls a bot emulator refused (4xx), newest last: what the real API would have rejected. */
export async function botRejections(sandboxUrl: string, channel: 'telegram' | 'max', botId: number): Promise<Json[]> {
  const calls = (await sandboxControl<Json[]>(sandboxUrl, `${channel}/calls?bot_id=${botId}&include=all`)).body;
  return calls.filter((c) => c.outcome === 'rejected');
}
