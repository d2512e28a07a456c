import { AsyncLocalStorage } from 'node:async_hooks';
import { Bot, MaxError } from '@maxhub/max-bot-api';
import type { Api } from '@maxhub/max-bot-api';
import type { SenderAction } from '@maxhub/max-bot-api/types';
import { Readable } from 'node:stream';
import { OutboundMediaSource, OutboundMessage } from '@app/contracts';
import { AnswerTooLargeError, cappedFetch, fetchTarget, TargetPolicy, TargetRefusedError } from '@app/egress';
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
import { MAX_UPDATE_TYPES } from './max-update.normalizer';

export interface MaxConnectorConfig {
  /** MAX Bot API base URL: https://platform-api2.max.ru in production, `{sandbox}/max` locally. */
  apiUrl: string;
  timeoutMs?: number;
  pacing?: Partial<PacingLimits>;
  /** Opens the bot token a message carries sealed (`sender.credential`). */
  openCredential: (sealed: string) => string;
  /** Calls the MAX Bot API and its upload URLs; injected in unit specs. */
  fetch?: typeof fetch;
  /**
   * Where media the connector downloads may come from: the business chose the URL, so it goes
   * through the platform's target policy (https and public addresses, each redirect re-checked).
   */
  mediaTargets: TargetPolicy;
}

export const MAX_DEFAULT_API_URL = 'https://platform-api2.max.ru';
export const MAX_DEFAULT_TIMEOUT_MS = 10_000;
/** MAX allows 30 requests per second per bot; it documents no per-chat limit. */
export const MAX_DEFAULT_PACING: PacingLimits = { ratePerSender: 30, burst: 1, recipientIntervalMs: 0 };
/** Largest media the connector moves from a URL into a MAX upload; enforced while reading. */
export const MAX_UPLOAD_LIMIT_BYTES = 50 * 1024 * 1024;

type Outcome<T> = { ok: true; value: T } | { ok: false; failure: BotApiFailure };
type MaxAttachmentRequest = { type: string; payload: Record<string, unknown> };

/** Per call: the Retry-After of a 429, which the client library does not surface. */
const callContext = new AsyncLocalStorage<{ retryAfterMs?: number; timedOut?: boolean }>();

/**
 * MAX Bot API connector through the official client (`@maxhub/max-bot-api`, its base URL and fetch
 * set here so that every call has a timeout and its 429 keeps `Retry-After`): templates become HTML
 * text with an `inline_keyboard` attachment; images go by URL, video and documents through MAX's
 * upload (`POST /uploads`, then the bytes, then the token in the message). MAX has no delivery
 * receipts: a sent message stays SENT.
 */
export class MaxConnector implements ChannelConnector, MediaUploader {
  readonly channel = 'max' as const;
  readonly pacing: PacingLimits;
  readonly sendTimeoutMs: number;
  private readonly apis = new Map<string, Api>();
  private readonly fetchFn: typeof fetch;

  constructor(private readonly config: MaxConnectorConfig) {
    this.sendTimeoutMs = config.timeoutMs ?? MAX_DEFAULT_TIMEOUT_MS;
    this.pacing = { ...MAX_DEFAULT_PACING, ...config.pacing };
    // Every answer of MAX (and of its upload URLs) is read against a cap, never whole.
    this.fetchFn = cappedFetch(BOT_ANSWER_LIMIT_BYTES, config.fetch ?? fetch);
  }

  getMe(token: string): Promise<Outcome<{ user_id: number; name: string; username: string | null }>> {
    return this.call('me', () => this.api(token).getMyInfo(), token);
  }

  /** Subscribes the bot's updates to our inbound URL with the secret MAX will send back. */
  subscribe(token: string, url: string, secret: string): Promise<Outcome<unknown>> {
    return this.call('subscriptions', () => this.api(token).subscribe(url, secret, [...MAX_UPDATE_TYPES]), token);
  }

  unsubscribe(token: string, url: string): Promise<Outcome<unknown>> {
    return this.call('subscriptions', () => this.api(token).unsubscribe(url), token);
  }

  /**
   * Shows a bot action in a chat (`POST /chats/{chatId}/actions`): `typing_on` ("typing..."),
   * `mark_seen` (the user's messages read).
   */
  sendAction(token: string, chatId: string, action: 'typing_on' | 'mark_seen'): Promise<Outcome<unknown>> {
    // The client's action type predates mark_seen, which the Bot API takes all the same.
    return this.call('actions', () => this.api(token).sendAction(Number(chatId), action as SenderAction), token);
  }

  async send(msg: OutboundMessage): Promise<SendResult> {
    if (msg.channel !== 'max') throw new Error(`MaxConnector cannot send a ${msg.channel} message`);
    const input = botSendInput(msg.sender.credential, this.config.openCredential, toMaxRequest(msg));
    if ('ok' in input) return input;
    const { token, request } = input;
    const api = this.api(token);
    const attachments: MaxAttachmentRequest[] = [];
    if (request.media) {
      const media = await this.mediaAttachment(api, token, request.media);
      if (!media.ok) return classifyBotFailure(media.failure);
      attachments.push(media.value);
    }
    if (request.keyboard.length) attachments.push({ type: 'inline_keyboard', payload: { buttons: request.keyboard } });
    const extra = { format: 'html' as const, ...(attachments.length ? { attachments } : {}) } as Parameters<
      Api['sendMessageToUser']
    >[2];
    const recipient = Number(msg.recipient);
    const outcome = await this.call(
      'messages',
      () =>
        recipient < 0
          ? api.sendMessageToChat(recipient, request.text, extra)
          : api.sendMessageToUser(recipient, request.text, extra),
      token,
    );
    if (!outcome.ok) return classifyBotFailure(outcome.failure);
    return { ok: true, provider_message_id: outcome.value.body.mid };
  }

  /** An image goes by URL; video, audio and files are uploaded first, as MAX requires. */
  private async mediaAttachment(api: Api, token: string, media: MaxMedia): Promise<Outcome<MaxAttachmentRequest>> {
    if ('token' in media) return { ok: true, value: { type: media.type, payload: { token: media.token } } };
    if (media.type === 'image') return { ok: true, value: { type: 'image', payload: { url: media.url } } };
    const url = media.url;
    const uploaded = await this.upload(api, token, media.type, () => this.downloadMedia(url));
    return uploaded.ok ? { ok: true, value: { type: media.type, payload: { token: uploaded.value } } } : uploaded;
  }

  /**
   * Uploads a file (`POST /uploads` for an upload URL, then the bytes to it) and answers the token a
   * message names it by. `bytes`: read only once the upload URL is known; a stream is sent as it is read.
   */
  private async upload(
    api: Api,
    token: string,
    type: MaxMediaType,
    bytes: () => Promise<Buffer | Readable>,
  ): Promise<Outcome<string>> {
    const slot = await this.call(
      'uploads',
      () => api.raw.uploads.getUploadUrl({ type }) as Promise<{ url: string; token?: string }>,
      token,
    );
    if (!slot.ok) return slot;
    return this.call(
      'uploads',
      async () => {
        const body = await bytes();
        const put = await this.fetchFn(slot.value.url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/octet-stream', Authorization: token },
          body: body as unknown as RequestInit['body'],
          ...(body instanceof Readable ? { duplex: 'half' } : {}),
          signal: AbortSignal.timeout(this.sendTimeoutMs),
        } as RequestInit);
        const answer = (await put.json().catch(() => ({}))) as {
          token?: string;
          photos?: Record<string, { token?: string }>;
        };
        if (!put.ok)
          throw new MaxError(put.status, { code: 'upload.failed', message: `the upload answered ${put.status}` });
        const photo = answer.photos ? Object.values(answer.photos)[0]?.token : undefined;
        const got = slot.value.token ?? answer.token ?? photo;
        if (!got) throw new MaxError(502, { code: 'upload.failed', message: 'the upload answered no token' });
        return got;
      },
      token,
    );
  }

  /**
   * Uploads a media library file for the message's bot (docs/media.md) and answers the token
   * messages name it by; MAX's tokens do not expire.
   */
  async uploadMedia(msg: OutboundMessage, file: MediaUploadSource): Promise<MediaUploadResult> {
    const input = botSendInput(msg.sender.credential, this.config.openCredential, {});
    if ('ok' in input) return input;
    const { token } = input;
    const type: MaxMediaType = file.type === 'document' ? 'file' : file.type;
    const uploaded = await this.upload(this.api(token), token, type, async () => file.body);
    if (!uploaded.ok) return classifyBotFailure(uploaded.failure);
    return { ok: true, handle: uploaded.value, expiresAt: null };
  }

  /**
   * The media's bytes, from the business's server: through the target policy (a redirect is
   * followed only to a URL it accepts), at most 50 MiB, counted while reading. When it cannot be
   * had the message fails, not MAX.
   */
  private async downloadMedia(url: string): Promise<Buffer> {
    const refuse = (code: string, message: string) => new MaxError(400, { code, message });
    const answer = await fetchTarget(url, {
      policy: this.config.mediaTargets,
      maxBytes: MAX_UPLOAD_LIMIT_BYTES,
      signal: AbortSignal.timeout(this.sendTimeoutMs),
    }).catch((err: unknown) => {
      if (err instanceof TargetRefusedError) throw refuse('media.refused', `the media URL was ${err.message}`);
      if (err instanceof AnswerTooLargeError) throw refuse('media.too.large', 'the media is larger than 50 MiB');
      const reason = (err as { name?: unknown })?.name === 'TimeoutError' ? 'timed out' : 'could not be reached';
      throw refuse('media.unavailable', `the media URL ${reason}`);
    });
    if (answer.status < 200 || answer.status >= 300)
      throw refuse('media.unavailable', `the media URL answered ${answer.status}`);
    return answer.body;
  }

  private api(token: string): Api {
    let api = this.apis.get(token);
    if (!api) {
      const timeoutMs = this.sendTimeoutMs;
      const fetchFn = this.fetchFn;
      // The client resolves method names against the base URL, so it must end in a slash.
      // The client's own fetch: a timeout on every call, and the Retry-After of a 429 kept for classification.
      const timedFetch: typeof fetch = async (input, init) => {
        const ctx = callContext.getStore();
        try {
          const res = await fetchFn(input, { ...init, signal: AbortSignal.timeout(timeoutMs) });
          const retryAfter = Number(res.headers.get('retry-after'));
          if (ctx && res.status === 429 && retryAfter > 0) ctx.retryAfterMs = retryAfter * 1000;
          return res;
        } catch (err) {
          if (ctx && (err as { name?: unknown })?.name === 'TimeoutError') ctx.timedOut = true;
          throw err;
        }
      };
      api = new Bot(token, {
        clientOptions: { baseUrl: `${this.config.apiUrl.replace(/\/+$/, '')}/`, fetch: timedFetch },
      }).api;
      if (this.apis.size >= 10_000) this.apis.clear();
      this.apis.set(token, api);
    }
    return api;
  }

  private call<T>(method: string, fn: () => Promise<T>, token: string): Promise<Outcome<T>> {
    const ctx: { retryAfterMs?: number; timedOut?: boolean } = {};
    return callContext.run(ctx, async () => {
      try {
        return { ok: true as const, value: await fn() };
      } catch (err) {
        const failure = maxFailure(method, err, ctx);
        return {
          ok: false as const,
          failure: { ...failure, description: redactSecrets(failure.description, [token]) },
        };
      }
    });
  }
}

/** Maps the MAX client's errors to the bot failure every bot channel is classified from. */
export function maxFailure(
  method: string,
  err: unknown,
  ctx: { retryAfterMs?: number; timedOut?: boolean } = {},
): BotApiFailure {
  if (err instanceof MaxError) {
    const recipient =
      err.status === 404 && /chat\.not\.found|user\.not\.found|not\.found/.test(err.code)
        ? 'not_found'
        : err.status === 403 && /chat\.denied|blocked/i.test(`${err.code} ${err.description}`)
          ? 'blocked'
          : null;
    return {
      status: err.status,
      description: `${method}: ${err.code}: ${err.description}`,
      retryAfterMs: ctx.retryAfterMs,
      recipient,
      // MAX answers this while an uploaded file is still being processed, and asks to send again later.
      notReady: /attachment\.not\.ready/.test(err.code),
    };
  }
  // Network errors and timeouts (a DOMException from another realm need not be an Error instance).
  const message = (err as { message?: unknown })?.message;
  return {
    status: null,
    description: `${method}: ${typeof message === 'string' ? message : String(err)}`,
    timedOut: !!ctx.timedOut,
  };
}

type MaxMediaType = 'image' | 'video' | 'audio' | 'file';
/** A MAX attachment's file: a URL, or the token of a file uploaded before (a media library file). */
type MaxMedia = { type: MaxMediaType } & ({ url: string } | { token: string });

type MaxRequest = { text: string; media?: MaxMedia; keyboard: object[][] } | { error: string };

/** The file of a media message as MAX takes it: its URL, or the upload token kept for a media library file. */
function maxFileOf(source: OutboundMediaSource): { url: string } | { token: string } {
  return source.url !== undefined ? { url: source.url } : { token: source.handle ?? '' };
}

/** The MAX message for an outbound message: HTML text, an optional media attachment, the buttons. */
export function toMaxRequest(msg: OutboundMessage): MaxRequest {
  if (!/^-?\d{1,20}$/.test(msg.recipient))
    return { error: 'a MAX recipient is a numeric user id (or a negative chat id)' };
  // The client carries ids as JavaScript numbers: a larger id would silently name someone else.
  if (!Number.isSafeInteger(Number(msg.recipient)))
    return { error: 'a MAX recipient id must be at most 9007199254740991 in magnitude' };
  const c = msg.content;
  if ('template' in c) {
    const rendered = c.template.rendered;
    if (!rendered) return { error: 'the template message was not rendered for a bot channel' };
    const media = c.template.media;
    return {
      text: templateHtml(rendered),
      keyboard: maxKeyboard(templateButtons(rendered)),
      ...(media
        ? {
            media: {
              type: media.type === 'IMAGE' ? 'image' : media.type === 'VIDEO' ? 'video' : 'file',
              url: media.url,
            },
          }
        : {}),
    };
  }
  if ('interactive' in c) {
    // Callback buttons (buttons, list rows), a link button (CTA, a Flow's web form) or a
    // request_geo_location button, in one inline_keyboard attachment after a media header.
    const drawn = botInteractive(c.interactive);
    const keyboard = drawn.location
      ? [[{ type: 'request_geo_location', text: drawn.location, quick: false }]]
      : maxKeyboard(drawn.buttons);
    const media = drawn.media;
    return {
      text: drawn.text,
      keyboard,
      ...(media ? { media: { type: media.type === 'document' ? 'file' : media.type, url: media.url } } : {}),
    };
  }
  if ('text' in c) return { text: escapeHtml(c.text.body), keyboard: [] };
  if ('image' in c)
    return { text: escapeHtml(c.image.caption ?? ''), media: { type: 'image', ...maxFileOf(c.image) }, keyboard: [] };
  if ('video' in c)
    return { text: escapeHtml(c.video.caption ?? ''), media: { type: 'video', ...maxFileOf(c.video) }, keyboard: [] };
  if ('document' in c)
    return {
      text: escapeHtml(c.document.caption ?? ''),
      media: { type: 'file', ...maxFileOf(c.document) },
      keyboard: [],
    };
  if ('audio' in c)
    return { text: escapeHtml(c.audio.caption ?? ''), media: { type: 'audio', ...maxFileOf(c.audio) }, keyboard: [] };
  return { error: `${msg.kind} messages cannot be sent to MAX` };
}

function maxKeyboard(buttons: BotButton[]): object[][] {
  return buttons.map((b) => [
    b.kind === 'url'
      ? { type: 'link', text: b.text, url: b.url }
      : { type: 'callback', text: b.text, payload: b.payload },
  ]);
}
