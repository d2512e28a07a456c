import type { Update as TelegramUpdate } from '@grammyjs/types';
import type { Update as MaxUpdate } from '@maxhub/max-bot-api/types';
import { normalizeMaxUpdate } from '../max/max-update.normalizer';
import { normalizeTelegramUpdate } from '../telegram/telegram-update.normalizer';

const now = new Date(1_763_700_000_000);

describe('bot updates as message.received', () => {
  const chat = { id: 5550001, type: 'private' as const, first_name: 'Ann' };
  const from = { id: 5550001, is_bot: false, first_name: 'Ann', last_name: 'Lee' };

  it('turns a Telegram text, photo and button press into the one event schema', () => {
    const text = normalizeTelegramUpdate(
      { update_id: 10, message: { message_id: 3, date: 1763690000, chat, from, text: 'hello' } } as TelegramUpdate,
      'conn-1',
      now,
    )!;
    expect(text).toMatchObject({
      type: 'message.received',
      channel: 'telegram',
      data: {
        connection_id: 'conn-1',
        from: '5550001',
        profile_name: 'Ann Lee',
        provider_message_id: '5550001:3',
        type: 'text',
        text: 'hello',
        timestamp: 1763690000,
      },
    });
    const photo = normalizeTelegramUpdate(
      {
        update_id: 11,
        message: {
          message_id: 4,
          date: 1763690001,
          chat,
          from,
          caption: 'look',
          photo: [{ file_id: 'f', file_unique_id: 'u', width: 1, height: 1 }],
        },
      } as TelegramUpdate,
      'conn-1',
      now,
    )!;
    expect(photo.data).toMatchObject({ type: 'image', text: 'look' });
    const press = normalizeTelegramUpdate(
      {
        update_id: 12,
        callback_query: {
          id: 'cb1',
          from,
          chat_instance: 'x',
          data: 'Stop promotions',
          message: { message_id: 3, date: 1, chat },
        },
      } as TelegramUpdate,
      'conn-1',
      now,
    )!;
    expect(press.data).toMatchObject({
      type: 'reply',
      text: 'Stop promotions',
      from: '5550001',
      provider_message_id: 'callback:cb1',
    });
  });

  it('gives the same Telegram update the same event id, and different updates different ids', () => {
    const u = { update_id: 10, message: { message_id: 3, date: 1, chat, from, text: 'hello' } } as TelegramUpdate;
    expect(normalizeTelegramUpdate(u, 'conn-1', now)!.id).toBe(normalizeTelegramUpdate(u, 'conn-1', new Date())!.id);
    expect(normalizeTelegramUpdate({ ...u, update_id: 11 }, 'conn-1', now)!.id).not.toBe(
      normalizeTelegramUpdate(u, 'conn-1', now)!.id,
    );
    expect(normalizeTelegramUpdate(u, 'conn-2', now)!.id).not.toBe(normalizeTelegramUpdate(u, 'conn-1', now)!.id);
    expect(
      normalizeTelegramUpdate({ update_id: 13, chat_join_request: {} } as unknown as TelegramUpdate, 'conn-1', now),
    ).toBeNull();
  });

  it('turns MAX message_created and message_callback into the one event schema', () => {
    const user = {
      user_id: 5550002,
      name: 'Bob',
      first_name: 'Bob',
      username: null,
      is_bot: false,
      last_activity_time: 0,
    };
    const created = normalizeMaxUpdate(
      {
        update_type: 'message_created',
        timestamp: 1763690000123,
        message: {
          sender: user,
          recipient: { chat_id: 1, chat_type: 'dialog', user_id: 9, post_id: null },
          timestamp: 1763690000123,
          body: { mid: 'mid.1', seq: 1, text: 'hi' },
        },
      } as MaxUpdate,
      'conn-9',
      now,
    )!;
    expect(created).toMatchObject({
      channel: 'max',
      data: { from: '5550002', provider_message_id: 'mid.1', type: 'text', text: 'hi', timestamp: 1763690000 },
    });
    const press = normalizeMaxUpdate(
      {
        update_type: 'message_callback',
        timestamp: 1763690001000,
        callback: { timestamp: 1763690001000, callback_id: 'cb.7', payload: 'stop', user },
      } as MaxUpdate,
      'conn-9',
      now,
    )!;
    expect(press.data).toMatchObject({ type: 'reply', text: 'stop', provider_message_id: 'cb.7' });
    expect(
      normalizeMaxUpdate({ update_type: 'bot_started', timestamp: 1, chat_id: 1, user } as MaxUpdate, 'conn-9', now),
    ).toBeNull();
  });
});
