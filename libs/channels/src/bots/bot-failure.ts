import { SendFailure } from '../channel-connector';
import { redactSecrets } from '../failure-text';

/** Most of a bot API answer read (their answers are small JSON): past it the call fails. */
export const BOT_ANSWER_LIMIT_BYTES = 1024 * 1024;

/** What a bot API call came to when it did not succeed, before classification. */
export interface BotApiFailure {
  /** HTTP status, or null when no answer came (network error, timeout). */
  status: number | null;
  /** The channel's error code or description. */
  description: string;
  retryAfterMs?: number;
  /** No answer because our own timeout fired: the request may have been processed. */
  timedOut?: boolean;
  /** What the channel's answer says of the recipient (Telegram and MAX word it differently). */
  recipient?: 'blocked' | 'not_found' | null;
  /** The channel is still processing something the message refers to (an uploaded file): ask again shortly. */
  notReady?: boolean;
}

/** Back-off of a sender asked to slow down without saying for how long. */
const DEFAULT_RATE_LIMIT_MS = 1000;
/** Pause before asking again about an attachment the channel is still processing. */
const NOT_READY_RETRY_MS = 1000;

/**
 * One classification for the bot channels (Telegram, MAX): a blocked or unknown recipient fails the
 * message for good; 429 pauses that bot only; a refused token fails the message (the connection is
 * broken until its owner fixes it); 5xx, network errors and timeouts back the channel off, a timeout
 * with the outcome unknown; an attachment still being processed retries this message only, after a
 * pause; any other 4xx is a final refusal of this message.
 */
export function classifyBotFailure(f: BotApiFailure): SendFailure {
  const title = redactSecrets(f.description).slice(0, 300);
  if (f.recipient === 'blocked')
    return { ok: false, retryable: false, scope: 'message', code: 'recipient_blocked', title };
  if (f.recipient === 'not_found')
    return { ok: false, retryable: false, scope: 'message', code: 'recipient_not_found', title };
  if (f.status === 429) {
    return {
      ok: false,
      retryable: true,
      scope: 'sender',
      code: 'rate_limited',
      title,
      retryAfterMs: f.retryAfterMs ?? DEFAULT_RATE_LIMIT_MS,
    };
  }
  if (f.notReady) {
    return {
      ok: false,
      retryable: true,
      scope: 'message',
      code: 'attachment_not_ready',
      title,
      retryAfterMs: f.retryAfterMs ?? NOT_READY_RETRY_MS,
    };
  }
  if (f.status === 401) return { ok: false, retryable: false, scope: 'message', code: 'sender_unauthorized', title };
  if (f.status === null) {
    return {
      ok: false,
      retryable: true,
      scope: 'channel',
      code: f.timedOut ? 'channel_timeout' : 'channel_unreachable',
      title,
      outcomeUnknown: !!f.timedOut,
    };
  }
  if (f.status >= 500) return { ok: false, retryable: true, scope: 'channel', code: 'channel_error', title };
  return { ok: false, retryable: false, scope: 'message', code: 'rejected', title };
}

const invalid = (title: string): SendFailure => ({
  ok: false,
  retryable: false,
  scope: 'message',
  code: 'invalid_message',
  title,
});

/**
 * What a bot connector needs before it calls its channel: the bot token opened from the message and
 * the channel request built from it; a message that has neither fails for good without a call.
 */
export function botSendInput<R extends object>(
  credential: string | null | undefined,
  openCredential: (sealed: string) => string,
  request: R | { error: string },
): { token: string; request: R } | SendFailure {
  let token: string;
  try {
    token = openCredential(credential ?? '');
  } catch {
    return invalid('The message carries no usable bot token');
  }
  if ('error' in request) return invalid(request.error);
  return { token, request };
}
