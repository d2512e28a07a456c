import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { Message, Update, User } from '@maxhub/max-bot-api/types';
import { MediaUploads } from '../media/media-uploads';
import { BotEmulator, EmulatedBot, MAX_EMULATOR, recipientOutcome } from './bot-emulator';
import { maxDialogChatId } from './inbound-updates';
import { maxKeyboardProblem } from './keyboard-rules';

interface MaxErrorBody {
  code: string;
  message: string;
}

/** A MAX Bot API error answer, in MAX's `{code, message}` shape (not a problem document). */
class MaxFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

interface MaxAttachment {
  type?: unknown;
  payload?: { url?: unknown; token?: unknown; buttons?: unknown };
}

const MAX_TEXT = 4000;
/** The actions `POST /chats/{chatId}/actions` takes. */
const MAX_ACTIONS = ['typing_on', 'sending_photo', 'sending_video', 'sending_audio', 'sending_file', 'mark_seen'];

/**
 * The emulated MAX Bot API under `/max/...` (the MAX Bot API's paths): `GET /me`,
 * `POST /messages`, `POST /uploads`, `GET|POST|DELETE /subscriptions`, `POST /answers`,
 * `POST /chats/{chatId}/actions`, with the
 * token in the `Authorization` header and errors as `{code, message}` (docs/sandbox.md).
 */
@Controller('max')
export class MaxBotApiController {
  private readonly uploads = new Map<string, { type: string; received: boolean }>();

  constructor(
    @Inject(MAX_EMULATOR) private readonly emulator: BotEmulator,
    private readonly mediaUploads: MediaUploads,
  ) {}

  @Get('me')
  me(
    @Headers('authorization') auth: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<User | MaxErrorBody> {
    return this.answer(reply, auth, false, 'me', {}, async (bot) => this.user(bot));
  }

  @Post('messages')
  @HttpCode(200)
  send(
    @Headers('authorization') auth: string | undefined,
    @Query() query: Record<string, string>,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ message: Message } | MaxErrorBody> {
    const params = { ...query, ...(body && typeof body === 'object' ? (body as object) : {}) };
    return this.answer(reply, auth, true, 'messages', params, async (bot) => ({
      message: this.message(bot, query, body),
    }));
  }

  /** The first step of a media upload: an upload URL and the token the message then names. */
  @Post('uploads')
  @HttpCode(200)
  upload(
    @Headers('authorization') auth: string | undefined,
    @Query('type') type: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ url: string; token: string } | MaxErrorBody> {
    return this.answer(reply, auth, false, 'uploads', { type }, async () => {
      if (!type || !['image', 'video', 'audio', 'file'].includes(type))
        throw new MaxFailure(400, 'proto.payload', 'Invalid upload type');
      const token = randomBytes(16).toString('hex');
      this.uploads.set(token, { type, received: false });
      return { url: `${reply.request.protocol}://${reply.request.host}/max/_upload/${token}`, token };
    });
  }

  /** Where the media content goes (the URL `POST /uploads` gave). */
  @Post('_upload/:token')
  @HttpCode(200)
  receiveUpload(
    @Param('token') token: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): { token: string } | MaxErrorBody {
    const upload = this.uploads.get(token);
    if (!upload) {
      void reply.status(404);
      return { code: 'not.found', message: 'Upload not found' };
    }
    upload.received = true;
    this.mediaUploads.counted('max', token);
    return { token };
  }

  @Get('subscriptions')
  subscriptions(
    @Headers('authorization') auth: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<object> {
    return this.answer(reply, auth, false, 'subscriptions', {}, async (bot) => ({
      subscriptions: bot.webhook
        ? [{ url: bot.webhook.url, time: Date.now(), update_types: bot.webhook.update_types }]
        : [],
    }));
  }

  @Post('subscriptions')
  @HttpCode(200)
  subscribe(
    @Headers('authorization') auth: string | undefined,
    @Body() body: { url?: unknown; secret?: unknown; update_types?: unknown } | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<object> {
    return this.answer(
      reply,
      auth,
      false,
      'subscribe',
      { url: body?.url, update_types: body?.update_types },
      async (bot) => {
        const url = typeof body?.url === 'string' ? body.url : '';
        if (!/^https?:\/\/\S+$/.test(url))
          throw new MaxFailure(400, 'proto.payload', 'Field "url" must be a valid URL');
        const secret = body?.secret === undefined ? null : String(body.secret);
        if (secret !== null && !/^[A-Za-z0-9_-]{5,256}$/.test(secret))
          throw new MaxFailure(
            400,
            'proto.payload',
            'Field "secret" must be 5 to 256 characters: letters, digits, "_" and "-"',
          );
        bot.webhook = {
          url,
          secret,
          update_types: Array.isArray(body?.update_types) ? (body.update_types as string[]) : [],
        };
        return { success: true };
      },
    );
  }

  @Delete('subscriptions')
  unsubscribe(
    @Headers('authorization') auth: string | undefined,
    @Query('url') url: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<object> {
    return this.answer(reply, auth, false, 'unsubscribe', { url }, async (bot) => {
      if (bot.webhook && (!url || bot.webhook.url === url)) bot.webhook = null;
      return { success: true };
    });
  }

  @Post('answers')
  @HttpCode(200)
  answerCallback(
    @Headers('authorization') auth: string | undefined,
    @Query('callback_id') callbackId: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<object> {
    return this.answer(reply, auth, false, 'answers', { callback_id: callbackId }, async () => {
      if (!callbackId) throw new MaxFailure(400, 'proto.payload', 'callback_id is required');
      return { success: true };
    });
  }

  /** A bot action in a chat: "typing..." and the like, or `mark_seen`; recorded as `actions`. */
  @Post('chats/:chatId/actions')
  @HttpCode(200)
  action(
    @Headers('authorization') auth: string | undefined,
    @Param('chatId') chatId: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<object> {
    const action = (body as { action?: unknown } | null)?.action;
    return this.answer(reply, auth, false, 'actions', { chat_id: chatId, action }, async (bot) => {
      if (!/^-?\d{1,20}$/.test(chatId)) throw new MaxFailure(400, 'proto.payload', 'chatId is a number');
      if (typeof action !== 'string' || !MAX_ACTIONS.includes(action)) {
        throw new MaxFailure(400, 'proto.payload', `action must be one of ${MAX_ACTIONS.join(', ')}`);
      }
      this.emulator.recordAccepted(bot, 'actions', { chat_id: chatId, action });
      return { success: true };
    });
  }

  /** Authenticates, applies the fault switch, runs the method and answers errors in MAX's shape. */
  private async answer<T>(
    reply: FastifyReply,
    auth: string | undefined,
    sends: boolean,
    method: string,
    params: Record<string, unknown>,
    run: (bot: EmulatedBot) => Promise<T>,
  ): Promise<T | MaxErrorBody> {
    const bot = auth ? this.emulator.bot(auth.replace(/^Bearer\s+/i, '')) : undefined;
    try {
      if (!bot) throw new MaxFailure(401, 'verify.token', 'Invalid access_token');
      const fault = await this.emulator.faultFor(bot, sends);
      if (fault?.kind === 'rate_limited')
        throw new MaxFailure(429, 'too.many.requests', 'Too many requests', fault.retryAfter);
      if (fault?.kind === 'unavailable') throw new MaxFailure(500, 'internal', 'Internal error');
      if (fault?.kind === 'blocked') throw new MaxFailure(403, 'chat.denied', 'The user has blocked the bot');
      const result = await run(bot);
      if (method === 'subscribe' || method === 'unsubscribe') {
        this.emulator.recordAccepted(bot, method, params);
      }
      return result;
    } catch (err) {
      if (!(err instanceof MaxFailure)) throw err;
      void reply.status(err.status);
      if (err.retryAfter !== undefined) void reply.header('Retry-After', String(err.retryAfter));
      if (bot && sends) this.emulator.recordFailure(bot, method, params, err.status);
      return { code: err.code, message: err.message };
    }
  }

  private message(bot: EmulatedBot, query: Record<string, string>, body: unknown): Message {
    const to = query.user_id ?? query.chat_id;
    if (!to) throw new MaxFailure(400, 'proto.payload', 'One of user_id or chat_id is required');
    if (!/^-?\d{1,20}$/.test(to)) throw new MaxFailure(400, 'proto.payload', 'user_id and chat_id are numbers');
    const b = (body ?? {}) as { text?: unknown; attachments?: unknown; format?: unknown };
    const text = b.text === undefined || b.text === null ? null : String(b.text);
    const attachments = Array.isArray(b.attachments) ? (b.attachments as MaxAttachment[]) : [];
    if (b.attachments !== undefined && b.attachments !== null && !Array.isArray(b.attachments))
      throw new MaxFailure(400, 'proto.payload', 'Field "attachments" must be an array');
    if (!text && attachments.length === 0)
      throw new MaxFailure(400, 'proto.payload', 'Message text or attachments are required');
    if (text && text.length > MAX_TEXT)
      throw new MaxFailure(400, 'proto.payload', `Text must be at most ${MAX_TEXT} characters`);
    if (b.format !== undefined && b.format !== null && b.format !== 'html' && b.format !== 'markdown')
      throw new MaxFailure(400, 'proto.payload', 'Field "format" must be html or markdown');
    for (const a of attachments) this.checkAttachment(a);
    const outcome = recipientOutcome(to);
    if (outcome === 'not_found') throw new MaxFailure(404, 'chat.not.found', `Chat ${to} not found`);
    if (outcome === 'blocked') throw new MaxFailure(403, 'chat.denied', 'The user has blocked the bot');

    const mid = `mid.${randomBytes(12).toString('hex')}`;
    this.emulator.recordAccepted(bot, 'messages', { ...query, ...(b as object) }, mid);
    return {
      sender: this.user(bot),
      recipient: {
        chat_id: Number(to),
        chat_type: 'dialog',
        user_id: query.user_id ? Number(query.user_id) : null,
        post_id: null,
      },
      timestamp: Date.now(),
      body: {
        mid,
        seq: this.emulator.newMessageId(),
        text,
        attachments: attachments as Message['body']['attachments'],
      },
    } as Message;
  }

  private checkAttachment(a: MaxAttachment): void {
    // A token of an upload the channel no longer keeps (the sandbox's control made it expire).
    const token = a?.type !== 'inline_keyboard' ? a?.payload?.token : undefined;
    if (typeof token === 'string' && this.uploads.get(token)?.received && !this.mediaUploads.known(token))
      throw new MaxFailure(400, 'attachment.not.found', 'The uploaded attachment is not found');
    switch (a?.type) {
      case 'inline_keyboard': {
        const problem = maxKeyboardProblem(a.payload?.buttons);
        if (problem) throw new MaxFailure(400, 'proto.payload', problem);
        return;
      }
      case 'image':
        if (typeof a.payload?.url === 'string' && /^https?:\/\/\S+$/.test(a.payload.url)) return;
        if (typeof a.payload?.token === 'string' && this.uploads.get(a.payload.token)?.received) return;
        throw new MaxFailure(400, 'proto.payload', 'An image needs a url or an uploaded token');
      case 'video':
      case 'audio':
      case 'file': {
        const upload = typeof a.payload?.token === 'string' ? this.uploads.get(a.payload.token) : undefined;
        if (!upload || !upload.received)
          throw new MaxFailure(400, 'attachment.not.ready', 'Key: errors.process.attachment.file.not.processed');
        return;
      }
      default:
        throw new MaxFailure(400, 'proto.payload', `Unsupported attachment type ${String(a?.type)}`);
    }
  }

  private user(bot: EmulatedBot): User {
    return {
      user_id: bot.id,
      name: bot.name,
      first_name: bot.name,
      username: bot.username,
      is_bot: true,
      last_activity_time: Date.now(),
    };
  }
}

/** An update as MAX posts it to a subscription: a new message, or a button press. */
export function maxUpdate(
  bot: EmulatedBot,
  input: {
    user_id: string;
    text?: string;
    photo_url?: string;
    document_url?: string;
    callback_data?: string;
    message_id?: string;
  },
  seq: number,
): Update {
  const timestamp = Date.now();
  const user = {
    user_id: Number(input.user_id),
    name: 'Sandbox user',
    first_name: 'Sandbox user',
    username: null,
    is_bot: false,
    last_activity_time: timestamp,
  };
  if (input.callback_data !== undefined) {
    return {
      update_type: 'message_callback',
      timestamp,
      callback: { timestamp, callback_id: `cb.${bot.id}.${seq}`, payload: input.callback_data, user },
      message: null,
    } as Update;
  }
  const attachments = input.photo_url
    ? [{ type: 'image', payload: { url: input.photo_url } }]
    : input.document_url
      ? [{ type: 'file', payload: { url: input.document_url }, filename: 'file.pdf' }]
      : undefined;
  return {
    update_type: 'message_created',
    timestamp,
    message: {
      sender: user,
      recipient: { chat_id: maxDialogChatId(bot, input.user_id), chat_type: 'dialog', user_id: bot.id, post_id: null },
      timestamp,
      body: { mid: input.message_id ?? `mid.in.${bot.id}.${seq}`, seq, text: input.text ?? null, attachments },
    },
  } as Update;
}
