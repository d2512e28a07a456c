import { Api, GrammyError, HttpError, InputFile } from 'grammy';
import type { ApiClientOptions } from 'grammy';
import type { InlineKeyboardButton, ReplyKeyboardMarkup, UserFromGetMe } from '@grammyjs/types';
import { OutboundMessage } from '@app/contracts';
import { cappedFetch } from '@app/egress';
import { BOT_ANSWER_LIMIT_BYTES, BotApiFailure, botSendInput, classifyBotFailure } from '../bots/bot-failure';
import { botInteractive } from '../bots/bot-interactive';
import { BotButton, escapeHtml, templateButtons, templateHtml } from '../bots/bot-text';
import {
  ChannelConnector,
  MediaUploader,
  MediaUploadResult,
  MediaUploadSource,
  PacingLimits,
  SendResult,
} from '../channel-connector';
import { redactSecrets } from '../failure-text';
import { TELEGRAM_ALLOWED_UPDATES } from './telegram-update.normalizer';

/**
 * grammY's default client (node-fetch) reads an answer whole; this is Node's fetch reading at most
 * BOT_ANSWER_LIMIT_BYTES of each (grammY's AbortSignal polyfill is bridged). The cast: grammY types
 * its fetch with node-fetch's Request and Response.
 */
const telegramFetch = cappedFetch(BOT_ANSWER_LIMIT_BYTES) as unknown as NonNullable<ApiClientOptions['fetch']>;

export interface TelegramConnectorConfig {
  /** Bot API root: https://api.telegram.org in production, `{sandbox}/telegram` locally. */
  apiUrl: string;
  /** Per request; a call that takes longer is abandoned with its outcome unknown. */
  timeoutMs?: number;
  pacing?: Partial<PacingLimits>;
  /** Opens the bot token a message carries sealed (`sender.credential`). */
  openCredential: (sealed: string) => string;
}

export const TELEGRAM_DEFAULT_API_URL = 'https://api.telegram.org';
export const TELEGRAM_DEFAULT_TIMEOUT_MS = 10_000;
/** Telegram's documented limits: about 30 messages per second per bot, one per second per chat. */
export const TELEGRAM_DEFAULT_PACING: PacingLimits = { ratePerSender: 30, burst: 1, recipientIntervalMs: 1000 };
/** Longest caption of a photo, video or document. */
const CAPTION_LIMIT = 1024;

/** What a send answers, as far as it is read: the message id and the file it carries. */
interface SentMessage {
  message_id: number;
  photo?: { file_id: string }[];
  video?: { file_id: string };
  audio?: { file_id: string };
  document?: { file_id: string };
}

/** What a bot call came to: its result, or the failure to classify. */
type Outcome<T> = { ok: true; value: T } | { ok: false; failure: BotApiFailure };

/**
 * Telegram Bot API connector, through grammY's `Api` client (its API root and timeout set here, its
 * errors mapped here): templates become HTML text with an inline keyboard, media templates a photo,
 * video or document with that text as caption; free-form content is `sendMessage`, `sendPhoto`,
 * `sendVideo`, `sendAudio` or `sendDocument` (media by URL, the caption escaped). Telegram has no delivery receipts: a sent message
 * stays SENT.
 */
export class TelegramConnector implements ChannelConnector, MediaUploader {
  readonly channel = 'telegram' as const;
  readonly pacing: PacingLimits;
  readonly sendTimeoutMs: number;
  private readonly apis = new Map<string, Api>();

  constructor(private readonly config: TelegramConnectorConfig) {
    this.sendTimeoutMs = config.timeoutMs ?? TELEGRAM_DEFAULT_TIMEOUT_MS;
    this.pacing = { ...TELEGRAM_DEFAULT_PACING, ...config.pacing };
  }

  /** The bot behind a token (connection check). */
  getMe(token: string): Promise<Outcome<UserFromGetMe>> {
    return this.call('getMe', () => this.api(token).getMe(), token);
  }

  /** Points the bot's updates at our inbound URL, with the secret Telegram will send back. */
  setWebhook(token: string, url: string, secret: string): Promise<Outcome<true>> {
    return this.call(
      'setWebhook',
      () => this.api(token).setWebhook(url, { secret_token: secret, allowed_updates: TELEGRAM_ALLOWED_UPDATES }),
      token,
    );
  }

  deleteWebhook(token: string): Promise<Outcome<true>> {
    return this.call('deleteWebhook', () => this.api(token).deleteWebhook(), token);
  }

  /** Ends the loading indicator Telegram shows on a pressed button until the bot answers the press. */
  answerCallbackQuery(token: string, callbackQueryId: string): Promise<Outcome<true>> {
    return this.call('answerCallbackQuery', () => this.api(token).answerCallbackQuery(callbackQueryId), token);
  }

  /** Shows "typing..." in the chat while a reply is written (`sendChatAction`, docs/conversations.md). */
  sendTyping(token: string, chatId: string): Promise<Outcome<true>> {
    return this.call('sendChatAction', () => this.api(token).sendChatAction(chatId, 'typing'), token);
  }

  async send(msg: OutboundMessage): Promise<SendResult> {
    const sent = await this.deliver(msg);
    return sent.ok ? { ok: true, provider_message_id: sent.provider_message_id } : sent;
  }

  /**
   * Sends a media library file with its message (docs/media.md): Telegram has no upload apart from
   * a send, so the file goes with the first message, by multipart, and the file_id of the message
   * sent sends it from then on (file_ids do not expire).
   */
  async uploadMedia(msg: OutboundMessage, file: MediaUploadSource): Promise<MediaUploadResult> {
    const sent = await this.deliver(msg, new InputFile(file.body, file.fileName ?? `file.${file.type}`));
    if (!sent.ok) return sent;
    if (!sent.fileId)
      return {
        ok: false,
        retryable: false,
        scope: 'message',
        code: 'invalid_response',
        title: 'The channel kept no file',
      };
    const result: SendResult = { ok: true, provider_message_id: sent.provider_message_id };
    return { ok: true, handle: sent.fileId, expiresAt: null, sent: result };
  }

  private async deliver(
    msg: OutboundMessage,
    upload?: InputFile,
  ): Promise<(SendResult & { ok: false }) | { ok: true; provider_message_id: string; fileId: string | null }> {
    if (msg.channel !== 'telegram') throw new Error(`TelegramConnector cannot send a ${msg.channel} message`);
    const input = botSendInput(msg.sender.credential, this.config.openCredential, toTelegramRequest(msg));
    if ('ok' in input) return input;
    const { token, request } = input;
    const api = this.api(token);
    const markup = request.replyKeyboard ?? (request.keyboard.length ? { inline_keyboard: request.keyboard } : null);
    const other = { parse_mode: 'HTML' as const, ...(markup ? { reply_markup: markup } : {}) };
    const media = upload ?? request.media!;
    const outcome = await this.call<SentMessage>(
      request.method,
      () => {
        const captioned = { ...other, caption: request.text || undefined };
        switch (request.method) {
          case 'sendPhoto':
            return api.sendPhoto(msg.recipient, media, captioned);
          case 'sendVideo':
            return api.sendVideo(msg.recipient, media, captioned);
          case 'sendDocument':
            return api.sendDocument(msg.recipient, media, captioned);
          case 'sendAudio':
            return api.sendAudio(msg.recipient, media, captioned);
          default:
            return api.sendMessage(msg.recipient, request.text, other);
        }
      },
      token,
    );
    if (!outcome.ok) return classifyBotFailure(outcome.failure);
    const m = outcome.value;
    const fileId =
      m.photo?.[m.photo.length - 1]?.file_id ?? m.video?.file_id ?? m.audio?.file_id ?? m.document?.file_id;
    return { ok: true, provider_message_id: `${msg.recipient}:${m.message_id}`, fileId: fileId ?? null };
  }

  private api(token: string): Api {
    let api = this.apis.get(token);
    if (!api) {
      api = new Api(token, {
        apiRoot: this.config.apiUrl.replace(/\/+$/, ''),
        timeoutSeconds: Math.max(1, Math.ceil(this.sendTimeoutMs / 1000)),
        // Answers are read against a cap: a huge answer fails the call instead of filling the heap.
        fetch: telegramFetch,
      });
      if (this.apis.size >= 10_000) this.apis.clear();
      this.apis.set(token, api);
    }
    return api;
  }

  private async call<T>(method: string, fn: () => Promise<T>, token: string): Promise<Outcome<T>> {
    try {
      return { ok: true, value: await fn() };
    } catch (err) {
      const failure = telegramFailure(method, err);
      // A network error quotes the URL, and Telegram's URLs carry the bot token.
      return { ok: false, failure: { ...failure, description: redactSecrets(failure.description, [token]) } };
    }
  }
}

/** Maps grammY's errors to the bot failure every bot channel is classified from. */
export function telegramFailure(method: string, err: unknown): BotApiFailure {
  if (err instanceof GrammyError) {
    const description = err.description;
    const recipient =
      err.error_code === 403 && /blocked by the user|user is deactivated|bot can't initiate/i.test(description)
        ? 'blocked'
        : err.error_code === 400 && /chat not found|user not found|PEER_ID_INVALID/i.test(description)
          ? 'not_found'
          : null;
    return {
      status: err.error_code,
      description: `${method}: ${description}`,
      retryAfterMs: err.parameters?.retry_after !== undefined ? err.parameters.retry_after * 1000 : undefined,
      recipient,
    };
  }
  if (err instanceof HttpError) {
    const inner = err.error as { status?: number; message?: string } | undefined;
    if (typeof inner?.status === 'number') return { status: inner.status, description: `${method}: ${err.message}` };
    return {
      status: null,
      description: `${method}: ${inner?.message ?? err.message}`,
      timedOut: /timed out/i.test(inner?.message ?? ''),
    };
  }
  throw err;
}

type TelegramRequest =
  | {
      method: 'sendMessage' | 'sendPhoto' | 'sendVideo' | 'sendDocument' | 'sendAudio';
      text: string;
      media?: string;
      keyboard: InlineKeyboardButton[][];
      /** Instead of the inline keyboard: a reply keyboard (a location request). */
      replyKeyboard?: ReplyKeyboardMarkup;
    }
  | { error: string };

const SEND_MEDIA = { image: 'sendPhoto', video: 'sendVideo', document: 'sendDocument' } as const;

/** The Bot API call for a message: text with a keyboard, or a media message with the text as caption. */
export function toTelegramRequest(msg: OutboundMessage): TelegramRequest {
  const c = msg.content;
  if ('template' in c) {
    const rendered = c.template.rendered;
    if (!rendered) return { error: 'the template message was not rendered for a bot channel' };
    const text = templateHtml(rendered);
    const keyboard = telegramKeyboard(templateButtons(rendered));
    const media = c.template.media;
    if (!media) return { method: 'sendMessage', text, keyboard };
    if (text.length > CAPTION_LIMIT)
      return { error: `the rendered template is longer than a ${CAPTION_LIMIT}-character caption` };
    const method = media.type === 'IMAGE' ? 'sendPhoto' : media.type === 'VIDEO' ? 'sendVideo' : 'sendDocument';
    return { method, text, media: media.url, keyboard };
  }
  if ('interactive' in c) {
    // Buttons and list rows as callback buttons, a CTA or a Flow's web form as a link button, a
    // location request as a one-time reply keyboard; a media header makes it a captioned media message.
    const drawn = botInteractive(c.interactive);
    const keyboard = telegramKeyboard(drawn.buttons);
    const replyKeyboard: ReplyKeyboardMarkup | undefined = drawn.location
      ? {
          keyboard: [[{ text: drawn.location, request_location: true }]],
          one_time_keyboard: true,
          resize_keyboard: true,
        }
      : undefined;
    if (!drawn.media) return { method: 'sendMessage', text: drawn.text, keyboard, replyKeyboard };
    return { method: SEND_MEDIA[drawn.media.type], text: drawn.text, media: drawn.media.url, keyboard };
  }
  if ('text' in c) return { method: 'sendMessage', text: escapeHtml(c.text.body), keyboard: [] };
  if ('audio' in c)
    return {
      method: 'sendAudio',
      text: escapeHtml(c.audio.caption ?? ''),
      media: c.audio.url ?? c.audio.handle,
      keyboard: [],
    };
  if ('image' in c)
    return {
      method: 'sendPhoto',
      text: escapeHtml(c.image.caption ?? ''),
      media: c.image.url ?? c.image.handle,
      keyboard: [],
    };
  if ('video' in c)
    return {
      method: 'sendVideo',
      text: escapeHtml(c.video.caption ?? ''),
      media: c.video.url ?? c.video.handle,
      keyboard: [],
    };
  if ('document' in c)
    return {
      method: 'sendDocument',
      text: escapeHtml(c.document.caption ?? ''),
      media: c.document.url ?? c.document.handle,
      keyboard: [],
    };
  return { error: `${msg.kind} messages cannot be sent to Telegram` };
}

function telegramKeyboard(buttons: BotButton[]): InlineKeyboardButton[][] {
  return buttons.map((b) => [
    b.kind === 'url' ? { text: b.text, url: b.url } : { text: b.text, callback_data: b.payload },
  ]);
}
