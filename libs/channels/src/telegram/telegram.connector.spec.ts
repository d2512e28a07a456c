import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFloodServer } from '@app/testing';
import { OutboundMessage } from '@app/contracts';
import { TelegramConnector, toTelegramRequest } from './telegram.connector';

const TOKEN = '7012345678:AAHk-secret_bot_token_0123456789';

function message(): OutboundMessage {
  return {
    id: '0190a5c0-0000-7000-8000-000000000002',
    channel: 'telegram',
    priority: 'service',
    category: null,
    user_id: 'u1',
    app_id: null,
    sender: { connection_id: 'c1', credential: 'sealed' },
    recipient: '5550001',
    kind: 'TEXT',
    content: { text: { body: 'hello' } },
    queued_at: 0,
  };
}

async function closedPort(): Promise<number> {
  const s: Server = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('Telegram connector', () => {
  it('sends audio by URL with sendAudio and its caption escaped', () => {
    const audio = {
      ...message(),
      kind: 'AUDIO' as const,
      content: { audio: { url: 'https://a.example/a.mp3', caption: 'A & B' } },
    };
    expect(toTelegramRequest(audio)).toEqual({
      method: 'sendAudio',
      text: 'A &amp; B',
      media: 'https://a.example/a.mp3',
      keyboard: [],
    });
  });

  it('a network failure names the call, never the bot token in its URL', async () => {
    const connector = new TelegramConnector({
      apiUrl: `http://127.0.0.1:${await closedPort()}`,
      timeoutMs: 2000,
      openCredential: () => TOKEN,
    });
    const result = await connector.send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, scope: 'channel', code: 'channel_unreachable' });
    expect(JSON.stringify(result)).not.toContain('AAHk-secret_bot_token');
    const me = await connector.getMe(TOKEN);
    expect(me.ok).toBe(false);
    expect(JSON.stringify(me)).not.toContain('AAHk-secret_bot_token');
  });

  it('stops reading an answer past the cap: a channel failure, not a process out of memory', async () => {
    const flood = await startFloodServer(150 * 1024 * 1024);
    try {
      const connector = new TelegramConnector({ apiUrl: flood.url, timeoutMs: 20_000, openCredential: () => TOKEN });
      const result = await connector.send(message());
      expect(result).toMatchObject({ ok: false, retryable: true, scope: 'channel' });
      await flood.ended();
      expect(flood.sent()).toBeLessThan(20 * 1024 * 1024);
    } finally {
      await flood.close();
    }
  });
});
