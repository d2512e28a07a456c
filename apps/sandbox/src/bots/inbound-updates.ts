import type { Update as TelegramUpdate } from '@grammyjs/types';
import type { Update as MaxUpdate } from '@maxhub/max-bot-api/types';
import { sizeSuffix } from '../media/sandbox-media';
import type { EmulatedBot, EmulatedBotChannel } from './bot-emulator';

/** The kinds of update `/_sandbox/{channel}/inbound` emits with `kind` (docs/sandbox.md). */
export const BOT_INBOUND_KINDS = [
  'text',
  'image',
  'video',
  'audio',
  'voice',
  'document',
  'sticker',
  'location',
  'venue',
  'contact',
  'edit',
  'reaction',
  'button',
] as const;
export type BotInboundKind = (typeof BOT_INBOUND_KINDS)[number];

/** What MAX has no update for: a voice note is an audio attachment there, and bots get no reactions. */
export const MAX_UNSUPPORTED_KINDS: readonly BotInboundKind[] = ['voice', 'venue', 'reaction'];

/** What the control endpoint was asked for. */
export interface BotInboundRequest {
  from: string;
  kind: BotInboundKind;
  text?: string;
  callback_data?: string;
  /** The message an edit, a reaction or a button press is about. */
  message_id?: string;
  /** Media kinds: the size of the file its file_id or URL serves. */
  media_size?: number;
  /** MAX: where the sandbox serves attachment URLs (its own address, as the control call reached it). */
  media_base?: string;
}

const PLACE = { latitude: 55.7558, longitude: 37.6173 };
const VCARD = 'BEGIN:VCARD\nVERSION:3.0\nFN:Sandbox Friend\nTEL;TYPE=cell:+79990009999\nEND:VCARD';

/** A Telegram update of the given kind from the chat `from`. */
export function telegramKindUpdate(updateId: number, bot: EmulatedBot, input: BotInboundRequest): TelegramUpdate {
  const date = Math.floor(Date.now() / 1000);
  const id = Number(input.from);
  const from = { id, is_bot: false, first_name: 'Sandbox', last_name: 'User', username: `user${input.from}` };
  const chat = { id, type: 'private' as const, first_name: 'Sandbox' };
  const target = Number(input.message_id ?? 1);
  const base = { message_id: 100000 + updateId, date, chat, from };
  const file = (prefix: string, extra: Record<string, unknown> = {}) => ({
    file_id: `${prefix}-${updateId}${sizeSuffix(input.media_size, '-')}`,
    file_unique_id: `${prefix[0]}${updateId}`,
    ...extra,
    ...(input.media_size === undefined ? {} : { file_size: input.media_size }),
  });
  const caption = input.text === undefined ? {} : { caption: input.text };
  const message = (content: Record<string, unknown>) => ({ update_id: updateId, message: { ...base, ...content } });
  let update: object;
  switch (input.kind) {
    case 'text':
      update = message({ text: input.text ?? '' });
      break;
    case 'image':
      update = message({
        ...caption,
        photo: [file('thumb', { width: 90, height: 90 }), file('photo', { width: 1280, height: 960, file_size: 4096 })],
      });
      break;
    case 'video':
      update = message({
        ...caption,
        video: file('video', { width: 640, height: 480, duration: 3, mime_type: 'video/mp4' }),
      });
      break;
    case 'audio':
      update = message({ audio: file('audio', { duration: 3, mime_type: 'audio/mpeg', file_name: 'song.mp3' }) });
      break;
    case 'voice':
      update = message({ voice: file('voice', { duration: 2, mime_type: 'audio/ogg' }) });
      break;
    case 'document':
      update = message({ ...caption, document: file('doc', { file_name: 'file.pdf', mime_type: 'application/pdf' }) });
      break;
    case 'sticker':
      update = message({
        sticker: file('sticker', {
          type: 'regular',
          width: 512,
          height: 512,
          is_animated: false,
          is_video: false,
          emoji: '😀',
        }),
      });
      break;
    case 'location':
      update = message({ location: PLACE });
      break;
    case 'venue':
      update = message({
        location: PLACE,
        venue: { location: PLACE, title: input.text ?? 'Sandbox place', address: 'Red Square 1' },
      });
      break;
    case 'contact':
      update = message({
        contact: { phone_number: '+79990009999', first_name: 'Sandbox', last_name: 'Friend', vcard: VCARD },
      });
      break;
    case 'edit':
      update = {
        update_id: updateId,
        edited_message: { ...base, message_id: target, edit_date: date, text: input.text ?? '' },
      };
      break;
    case 'reaction':
      update = {
        update_id: updateId,
        message_reaction: {
          chat,
          message_id: target,
          user: from,
          date,
          old_reaction: [],
          new_reaction: input.text === '' ? [] : [{ type: 'emoji', emoji: input.text ?? '👍' }],
        },
      };
      break;
    case 'button': {
      const data = input.callback_data ?? 'yes';
      update = {
        update_id: updateId,
        callback_query: {
          id: `${bot.id}${updateId}`,
          from,
          chat_instance: String(bot.id),
          data,
          message: {
            message_id: target,
            date,
            chat,
            from: { id: bot.id, is_bot: true, first_name: bot.name },
            text: 'message with buttons',
            reply_markup: { inline_keyboard: [[{ text: input.text ?? data, callback_data: data }]] },
          },
        },
      };
      break;
    }
    default:
      throw new Error(`no Telegram update for ${String(input.kind)}`);
  }
  return update as TelegramUpdate;
}

/**
 * The chat id of the emulated MAX dialog of a bot and a user: as on MAX, a chat of its own, not the
 * user's id (the bot's id plus the user's).
 */
export function maxDialogChatId(bot: EmulatedBot, userId: string | number): number {
  return bot.id + Number(userId);
}

/** A MAX update of the given kind from the user `from` (kinds MAX has: not MAX_UNSUPPORTED_KINDS). */
export function maxKindUpdate(bot: EmulatedBot, input: BotInboundRequest, seq: number): MaxUpdate {
  const timestamp = Date.now();
  const user = {
    user_id: Number(input.from),
    name: 'Sandbox user',
    first_name: 'Sandbox user',
    username: `user${input.from}`,
    is_bot: false,
    last_activity_time: timestamp,
  };
  const recipient = { chat_id: maxDialogChatId(bot, input.from), chat_type: 'dialog', user_id: bot.id, post_id: null };
  const mid = `mid.in.${bot.id}.${seq}`;
  const base = input.media_base ?? 'https://max.sandbox';
  const media = (kind: string) => ({
    url: `${base}/_media/max.${kind}.${seq}${sizeSuffix(input.media_size, '.')}`,
    token: `${kind}-${seq}`,
  });
  const attachment: Record<BotInboundKind, unknown> = {
    text: null,
    image: { type: 'image', payload: { ...media('image'), photo_id: seq } },
    video: { type: 'video', payload: media('video'), width: 640, height: 480, duration: 3 },
    audio: { type: 'audio', payload: media('audio') },
    voice: null,
    document: { type: 'file', payload: media('file'), filename: 'file.pdf', size: 4096 },
    sticker: {
      type: 'sticker',
      payload: { url: `https://max.sandbox/sticker/${seq}`, code: `st${seq}` },
      width: 1,
      height: 1,
    },
    location: { type: 'location', ...PLACE },
    venue: null,
    contact: { type: 'contact', payload: { vcf_info: VCARD, max_info: null, hash: `h${seq}` } },
    edit: null,
    reaction: null,
    button: null,
  };
  if (input.kind === 'button') {
    const payload = input.callback_data ?? 'yes';
    return {
      update_type: 'message_callback',
      timestamp,
      callback: { timestamp, callback_id: `cb.${bot.id}.${seq}`, payload, user },
      message: {
        sender: { user_id: bot.id, name: bot.name, first_name: bot.name, username: bot.username, is_bot: true },
        recipient,
        timestamp,
        body: {
          mid: input.message_id ?? `mid.out.${bot.id}.1`,
          seq: 1,
          text: 'message with buttons',
          attachments: [
            {
              type: 'inline_keyboard',
              payload: { buttons: [[{ type: 'callback', text: input.text ?? payload, payload }]] },
            },
          ],
        },
      },
    } as MaxUpdate;
  }
  const a = attachment[input.kind];
  const edited = input.kind === 'edit';
  return {
    update_type: edited ? 'message_edited' : 'message_created',
    timestamp,
    message: {
      sender: user,
      recipient,
      timestamp,
      body: {
        mid: edited ? (input.message_id ?? mid) : mid,
        seq,
        text: input.text ?? null,
        ...(a ? { attachments: [a] } : {}),
      },
    },
  } as MaxUpdate;
}

/** Whether the channel has an update for the kind. */
export function channelHasKind(channel: EmulatedBotChannel, kind: BotInboundKind): boolean {
  return channel === 'telegram' || !MAX_UNSUPPORTED_KINDS.includes(kind);
}
