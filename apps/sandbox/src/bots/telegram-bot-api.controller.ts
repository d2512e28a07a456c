import { All, Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InlineKeyboardButton, Message, Update, User } from '@grammyjs/types';
import { MediaUploads } from '../media/media-uploads';
import { parseMultipartForm } from '../media/multipart-form';
import { sandboxMediaBytes, sizeOfHandle } from '../media/sandbox-media';
import { BotEmulator, EmulatedBot, recipientOutcome, TELEGRAM_EMULATOR } from './bot-emulator';
import { telegramReplyKeyboardProblem } from './keyboard-rules';

type Params = Record<string, unknown>;
type TelegramAnswer = { ok: true; result: unknown; description?: string } | TelegramError;
interface TelegramError {
  ok: false;
  error_code: number;
  description: string;
  parameters?: { retry_after: number };
}

/** A Bot API error answer, in Telegram's shape (not a problem document). */
class TelegramFailure extends Error {
  constructor(
    readonly status: number,
    description: string,
    readonly retryAfter?: number,
  ) {
    super(description);
  }

  body(): TelegramError {
    return {
      ok: false,
      error_code: this.status,
      description: this.message,
      ...(this.retryAfter !== undefined ? { parameters: { retry_after: this.retryAfter } } : {}),
    };
  }
}

const badRequest = (what: string) => new TelegramFailure(400, `Bad Request: ${what}`);

/** The tags Telegram's HTML parse mode accepts; anything else is a parse error. */
const HTML_TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'a',
  'code',
  'pre',
  'tg-spoiler',
  'blockquote',
  'span',
]);

/**
 * Checks text in HTML parse mode as Telegram does: only the supported tags, properly nested, and
 * every other `<`, `>` and `&` escaped as an entity.
 */
export function htmlParseError(text: string): string | null {
  const open: string[] = [];
  const re = /<(\/?)([a-z-]+)(\s[^<>]*)?>|&(#\d+|#x[0-9a-f]+|[a-z]+);|[<>&]/gi;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0] === '<' || m[0] === '>' || m[0] === '&')
      return `can't parse entities: unsupported start tag or unescaped "${m[0]}" at byte offset ${m.index}`;
    if (m[4] !== undefined) {
      if (!/^(#\d+|#x[0-9a-f]+|lt|gt|amp|quot)$/i.test(m[4]))
        return `can't parse entities: unsupported entity "&${m[4]};"`;
      continue;
    }
    const tag = m[2].toLowerCase();
    if (!HTML_TAGS.has(tag)) return `can't parse entities: unsupported start tag "${tag}" at byte offset ${m.index}`;
    if (m[1]) {
      if (open.pop() !== tag) return `can't parse entities: can't find end tag corresponding to start tag "${tag}"`;
    } else open.push(tag);
  }
  return open.length
    ? `can't parse entities: can't find end tag corresponding to start tag "${open[open.length - 1]}"`
    : null;
}

function checkKeyboard(markup: unknown): void {
  if (markup === undefined) return;
  const parsed = typeof markup === 'string' ? (JSON.parse(markup) as unknown) : markup;
  if ((parsed as { keyboard?: unknown })?.keyboard !== undefined) {
    const problem = telegramReplyKeyboardProblem((parsed as { keyboard: unknown }).keyboard);
    if (problem) throw badRequest(problem);
    return;
  }
  const rows = (parsed as { inline_keyboard?: unknown })?.inline_keyboard;
  if (!Array.isArray(rows)) throw badRequest("can't parse reply keyboard markup JSON object");
  for (const row of rows) {
    if (!Array.isArray(row))
      throw badRequest('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays');
    for (const b of row as InlineKeyboardButton[]) {
      if (typeof b?.text !== 'string' || b.text.length === 0)
        throw badRequest('text buttons are unallowed in the inline keyboard');
      const url = 'url' in b ? b.url : undefined;
      const data = 'callback_data' in b ? b.callback_data : undefined;
      if ((url === undefined) === (data === undefined))
        throw badRequest("can't parse inline keyboard button: exactly one of url or callback_data is expected");
      if (url !== undefined && !/^(https?|tg):\/\/\S+$/.test(url)) throw badRequest('BUTTON_URL_INVALID');
      if (data !== undefined && (Buffer.byteLength(data) < 1 || Buffer.byteLength(data) > 64))
        throw badRequest('BUTTON_DATA_INVALID');
    }
  }
}

const MEDIA_FIELD: Record<string, string> = {
  sendPhoto: 'photo',
  sendVideo: 'video',
  sendDocument: 'document',
  sendAudio: 'audio',
};

/** A sent message's file as Telegram describes it: a photo in sizes, or one video, audio or document. */
function sentFile(field: string, fileId: string): object {
  const file = { file_id: fileId, file_unique_id: `u${fileId}` };
  return field === 'photo' ? { photo: [{ ...file, width: 640, height: 480 }] } : { [field]: file };
}

/** The Bot API's download limit for bots (getFile). */
const TELEGRAM_DOWNLOAD_LIMIT = 20 * 1024 * 1024;

/**
 * The emulated Telegram Bot API at `/telegram/bot<token>/<method>`, with Telegram's answers
 * `{ok, result}` and `{ok: false, error_code, description, parameters}` (docs/sandbox.md).
 */
@Controller('telegram')
export class TelegramBotApiController {
  constructor(
    @Inject(TELEGRAM_EMULATOR) private readonly emulator: BotEmulator,
    private readonly uploads: MediaUploads,
  ) {}

  /** A file `getFile` gave the path of: its bytes, made while sent (docs/sandbox.md, Inbound media). */
  @Get('file/bot:token/files/:fileId')
  async file(
    @Param('token') token: string,
    @Param('fileId') fileId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (!this.emulator.bot(token)) {
      await reply.status(404).send({ ok: false, error_code: 404, description: 'Not Found' });
      return;
    }
    const size = sizeOfHandle(fileId);
    void reply.header('Content-Type', 'application/octet-stream').header('Content-Length', String(size));
    await reply.send(sandboxMediaBytes(size));
  }

  @All('bot:token/:method')
  async call(
    @Param('token') token: string,
    @Param('method') method: string,
    @Query() query: Params,
    // The body as parsed, not through the validation pipe: a multipart body is a Buffer, not fields.
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TelegramAnswer> {
    const body: unknown = request.body;
    const contentType = request.headers['content-type'];
    const bot = this.emulator.bot(token);
    // A send with a file (multipart): the file is counted as an upload and named by the file_id it gets.
    const form = Buffer.isBuffer(body) ? parseMultipartForm(body, contentType) : null;
    const media = MEDIA_FIELD[method];
    // grammY names the file part and points the field at it (`attach://<part>`); a client may also send the field as the file.
    const attached = form && media ? /^"?attach:\/\/([^"]+)"?$/.exec(form.fields[media] ?? '')?.[1] : undefined;
    const hasFile = !!form && !!media && (form.files.has(media) || (!!attached && form.files.has(attached)));
    const uploaded = bot && hasFile ? this.uploads.record('telegram', 'tgfile-') : null;
    const fields: Params = form ? { ...form.fields, ...(uploaded ? { [media]: uploaded } : {}) } : {};
    const params: Params = {
      ...query,
      ...(form ? fields : body && typeof body === 'object' && !Buffer.isBuffer(body) ? (body as Params) : {}),
    };
    try {
      if (!bot) throw new TelegramFailure(401, 'Unauthorized');
      return await this.handle(bot, method, params);
    } catch (err) {
      if (!(err instanceof TelegramFailure)) throw err;
      void reply.status(err.status);
      if (bot && (MEDIA_FIELD[method] || method === 'sendMessage'))
        this.emulator.recordFailure(bot, method, params, err.status);
      return err.body();
    }
  }

  private async handle(bot: EmulatedBot, method: string, params: Params): Promise<TelegramAnswer> {
    const sends = method === 'sendMessage' || MEDIA_FIELD[method] !== undefined;
    const fault = await this.emulator.faultFor(bot, sends);
    if (fault?.kind === 'rate_limited') {
      throw new TelegramFailure(429, `Too Many Requests: retry after ${fault.retryAfter}`, fault.retryAfter);
    }
    if (fault?.kind === 'unavailable') throw new TelegramFailure(500, 'Internal Server Error');
    if (fault?.kind === 'blocked') throw new TelegramFailure(403, 'Forbidden: bot was blocked by the user');

    switch (method) {
      case 'getMe':
        return { ok: true, result: this.me(bot) };
      case 'setWebhook': {
        const url = typeof params.url === 'string' ? params.url : '';
        const secret = params.secret_token === undefined ? null : String(params.secret_token);
        if (secret !== null && !/^[A-Za-z0-9_-]{1,256}$/.test(secret))
          throw badRequest('secret token contains unallowed characters');
        if (url && !/^https?:\/\//.test(url))
          throw badRequest('bad webhook: An HTTPS URL must be provided for webhook');
        bot.webhook = url
          ? {
              url,
              secret,
              update_types: Array.isArray(params.allowed_updates) ? (params.allowed_updates as string[]) : [],
            }
          : null;
        this.emulator.recordAccepted(bot, method, { url, allowed_updates: params.allowed_updates });
        return { ok: true, result: true, description: url ? 'Webhook was set' : 'Webhook was deleted' };
      }
      case 'deleteWebhook':
        bot.webhook = null;
        this.emulator.recordAccepted(bot, method, {});
        return { ok: true, result: true, description: 'Webhook was deleted' };
      case 'getWebhookInfo':
        return {
          ok: true,
          result: { url: bot.webhook?.url ?? '', has_custom_certificate: false, pending_update_count: 0 },
        };
      case 'answerCallbackQuery':
        if (!params.callback_query_id)
          throw badRequest('query is too old and response timeout expired or query ID is invalid');
        this.emulator.recordAccepted(bot, method, params);
        return { ok: true, result: true };
      case 'sendChatAction':
        if (!params.chat_id || !params.action) throw badRequest('chat_id and action are required');
        this.emulator.recordAccepted(bot, method, params);
        return { ok: true, result: true };
      case 'getFile': {
        const fileId = typeof params.file_id === 'string' ? params.file_id : '';
        if (!fileId) throw badRequest('file_id is required');
        const size = sizeOfHandle(fileId);
        // The Bot API gives bots files up to 20 MB.
        if (size > TELEGRAM_DOWNLOAD_LIMIT) throw badRequest('file is too big');
        return {
          ok: true,
          result: { file_id: fileId, file_unique_id: `u${fileId}`, file_size: size, file_path: `files/${fileId}` },
        };
      }
      case 'sendMessage':
      case 'sendPhoto':
      case 'sendVideo':
      case 'sendDocument':
      case 'sendAudio':
        return { ok: true, result: this.send(bot, method, params) };
      default:
        throw new TelegramFailure(404, 'Not Found: method not found');
    }
  }

  private send(bot: EmulatedBot, method: string, params: Params): Message {
    const chatId = params.chat_id === undefined || params.chat_id === '' ? '' : String(params.chat_id);
    if (!chatId) throw badRequest('chat_id is empty');
    if (!/^-?\d{1,20}$/.test(chatId) && !/^@\w{5,32}$/.test(chatId)) throw badRequest('chat not found');
    const mediaField = MEDIA_FIELD[method];
    const text = String((mediaField ? params.caption : params.text) ?? '');
    if (!mediaField && !text.trim()) throw badRequest('message text is empty');
    if (text.length > (mediaField ? 1024 : 4096))
      throw badRequest(mediaField ? 'message caption is too long' : 'message is too long');
    if (mediaField) {
      const media = params[mediaField];
      if (typeof media !== 'string' || (!/^https?:\/\/\S+$/.test(media) && !this.uploads.known(media)))
        throw badRequest(`wrong remote file identifier specified: Wrong string length`);
    }
    if (params.parse_mode !== undefined) {
      if (params.parse_mode !== 'HTML' && params.parse_mode !== 'MarkdownV2' && params.parse_mode !== 'Markdown')
        throw badRequest('unsupported parse_mode');
      const problem = params.parse_mode === 'HTML' ? htmlParseError(text) : null;
      if (problem) throw badRequest(problem);
    }
    checkKeyboard(params.reply_markup);
    const outcome = recipientOutcome(chatId);
    if (outcome === 'not_found') throw badRequest('chat not found');
    if (outcome === 'blocked') throw new TelegramFailure(403, 'Forbidden: bot was blocked by the user');

    const messageId = this.emulator.newMessageId();
    this.emulator.recordAccepted(bot, method, params, String(messageId));
    const message = {
      message_id: messageId,
      date: Math.floor(Date.now() / 1000),
      chat: { id: Number(chatId), type: 'private', first_name: 'Sandbox user' },
      from: this.me(bot),
      ...(mediaField ? { caption: text || undefined } : { text }),
      ...(mediaField && this.uploads.known(String(params[mediaField]))
        ? sentFile(mediaField, String(params[mediaField]))
        : {}),
    };
    return message as unknown as Message;
  }

  private me(bot: EmulatedBot): User {
    return { id: bot.id, is_bot: true, first_name: bot.name, username: bot.username };
  }
}

/** An update as Telegram posts it to a webhook: a text, photo or document message, or a button press. */
export function telegramUpdate(
  updateId: number,
  bot: EmulatedBot,
  input: {
    chat_id: string;
    text?: string;
    photo_url?: string;
    document_url?: string;
    callback_data?: string;
    message_id?: number;
  },
): Update {
  const date = Math.floor(Date.now() / 1000);
  const from: User = { id: Number(input.chat_id), is_bot: false, first_name: 'Sandbox user' };
  const chat = { id: Number(input.chat_id), type: 'private' as const, first_name: 'Sandbox user' };
  if (input.callback_data !== undefined) {
    return {
      update_id: updateId,
      callback_query: {
        id: `${bot.id}${updateId}`,
        from,
        chat_instance: String(bot.id),
        data: input.callback_data,
        message: {
          message_id: input.message_id ?? 1,
          date,
          chat,
          from: { id: bot.id, is_bot: true, first_name: bot.name },
          text: 'message with buttons',
        },
      },
    } as Update;
  }
  const base = { message_id: 100000 + updateId, date, chat, from };
  if (input.photo_url !== undefined) {
    return {
      update_id: updateId,
      message: {
        ...base,
        caption: input.text,
        photo: [{ file_id: `photo-${updateId}`, file_unique_id: `p${updateId}`, width: 640, height: 480 }],
      },
    } as Update;
  }
  if (input.document_url !== undefined) {
    return {
      update_id: updateId,
      message: {
        ...base,
        caption: input.text,
        document: { file_id: `doc-${updateId}`, file_unique_id: `d${updateId}`, file_name: 'file.pdf' },
      },
    } as Update;
  }
  return { update_id: updateId, message: { ...base, text: input.text ?? '' } } as Update;
}
