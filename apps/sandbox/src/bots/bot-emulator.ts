import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { SandboxClock } from '../whatsapp/sandbox-clock';
import { RecordWindow } from '../record-window';
import { webhookPoster } from '../webhook-post';

/** The bot-API channels the sandbox emulates. */
export type EmulatedBotChannel = 'telegram' | 'max';

/**
 * What a fault switch makes the emulated API answer: 429 with a retry-after, 500, no answer at all,
 * or "the user blocked the bot" for every send.
 */
export type BotFaultMode = '429' | '500' | 'hang' | 'blocked';

export interface BotFault {
  mode: BotFaultMode;
  /** Requests still affected; null until cleared. */
  remaining: number | null;
  retry_after_seconds: number;
  /** Only this bot's requests (its token's numeric id, or the whole token); null: every bot. */
  bot: string | null;
}

/** A bot the emulated API knows, with its webhook once one is set. */
export interface EmulatedBot {
  id: number;
  token: string;
  username: string;
  name: string;
  webhook: { url: string; secret: string | null; update_types: string[] } | null;
}

/** One request that reached the emulated API (methods that send, and webhook changes). */
export interface RecordedBotCall {
  seq: number;
  received_at: number;
  bot_id: number;
  method: string;
  /** The parameters as the API received them (query and body merged). */
  params: Record<string, unknown>;
  outcome: 'accepted' | 'rejected' | 'fault';
  http_status: number;
  /** The id the emulator answered with for an accepted send. */
  message_id: string | null;
}

export interface UpdateDelivery {
  delivered: boolean;
  status: number | null;
}

/** How a send to a recipient ends, by the recipient's last four digits (docs/sandbox.md). */
export type RecipientOutcome = 'ok' | 'not_found' | 'blocked';
export function recipientOutcome(recipient: string): RecipientOutcome {
  if (recipient.endsWith('3333')) return 'not_found';
  if (recipient.endsWith('4444')) return 'blocked';
  return 'ok';
}

const UPDATE_TIMEOUT_MS = 5000;

/**
 * The state of one emulated bot API (bots, the call log, the fault switch) and the delivery of
 * updates to a bot's webhook with its secret header. Telegram and MAX differ only in their paths,
 * bodies and error shapes, which their controllers own.
 */
export class BotEmulator {
  private readonly logger: Logger;
  private readonly bots = new Map<string, EmulatedBot>();
  private readonly calls: RecordWindow<RecordedBotCall>;
  private fault: BotFault | null = null;
  private seq = 0;
  private nextId = 1;

  constructor(
    readonly channel: EmulatedBotChannel,
    /** The header a webhook call carries the bot's secret in. */
    private readonly secretHeader: string,
    private readonly clock: SandboxClock,
    /** The most recent calls kept (SANDBOX_RECORDS_MAX). */
    recordsMax: number,
  ) {
    this.calls = new RecordWindow(recordsMax);
    this.logger = new Logger(`${channel === 'telegram' ? 'Telegram' : 'Max'}Emulator`);
  }

  /** Registers a bot; its token is made up unless given. */
  register(opts: { token?: string; username?: string; name?: string }): EmulatedBot {
    const id = 7_000_000_000 + (this.bots.size + 1) * 101;
    const token =
      opts.token ??
      (this.channel === 'telegram'
        ? `${id}:${randomBytes(26).toString('base64url')}`
        : randomBytes(32).toString('base64url'));
    const bot: EmulatedBot = {
      id,
      token,
      username: opts.username ?? `sandbox_${id}_bot`,
      name: opts.name ?? 'Sandbox bot',
      webhook: null,
    };
    this.bots.set(token, bot);
    return bot;
  }

  bot(token: string): EmulatedBot | undefined {
    return this.bots.get(token);
  }

  allBots(): EmulatedBot[] {
    return [...this.bots.values()];
  }

  newMessageId(): number {
    return this.nextId++;
  }

  record(call: Omit<RecordedBotCall, 'seq' | 'received_at'>): RecordedBotCall {
    const entry = { seq: ++this.seq, received_at: Date.now(), ...call };
    this.calls.push(entry);
    return entry;
  }

  listCalls(filter: { include?: string; bot_id?: string; method?: string }): RecordedBotCall[] {
    return this.calls.filter(
      (c) =>
        (filter.include === 'all' || c.outcome === 'accepted') &&
        (!filter.bot_id || String(c.bot_id) === filter.bot_id) &&
        (!filter.method || c.method === filter.method),
    );
  }

  setFault(fault: Omit<BotFault, 'remaining'> & { count: number | null }): BotFault {
    this.fault = {
      mode: fault.mode,
      remaining: fault.count,
      retry_after_seconds: fault.retry_after_seconds,
      bot: fault.bot,
    };
    return this.fault;
  }

  currentFault(): BotFault | null {
    return this.fault;
  }

  /** The fault that answers this request, if any, counting it down. Webhook management is never faulted. */
  takeFault(bot: EmulatedBot, sends: boolean): BotFault | null {
    const f = this.fault;
    if (!f || (f.mode === 'blocked' && !sends)) return null;
    if (f.bot !== null && f.bot !== String(bot.id) && f.bot !== bot.token) return null;
    if (f.remaining !== null) {
      f.remaining -= 1;
      if (f.remaining <= 0) this.fault = null;
    }
    return f;
  }

  /**
   * What the fault switch makes this request answer: null (no fault), or the fault to answer with.
   * A `hang` holds the request open until the client gives up or the sandbox stops, then answers 500.
   */
  async faultFor(
    bot: EmulatedBot,
    sends: boolean,
  ): Promise<{ kind: 'rate_limited' | 'unavailable' | 'blocked'; retryAfter: number } | null> {
    const fault = this.takeFault(bot, sends);
    if (!fault) return null;
    if (fault.mode === 'hang') await this.clock.untilStopped().promise;
    const kind = fault.mode === '429' ? 'rate_limited' : fault.mode === 'blocked' ? 'blocked' : 'unavailable';
    return { kind, retryAfter: fault.retry_after_seconds };
  }

  /** Logs a request the API accepted, with the message id it answered for a send. */
  recordAccepted(
    bot: EmulatedBot,
    method: string,
    params: Record<string, unknown>,
    messageId: string | null = null,
  ): void {
    this.record({ bot_id: bot.id, method, params, outcome: 'accepted', http_status: 200, message_id: messageId });
  }

  /** Logs a send the API answered with an error: a fault (429, 5xx) or a refusal. */
  recordFailure(bot: EmulatedBot, method: string, params: Record<string, unknown>, httpStatus: number): void {
    this.record({
      bot_id: bot.id,
      method,
      params,
      outcome: httpStatus === 429 || httpStatus >= 500 ? 'fault' : 'rejected',
      http_status: httpStatus,
      message_id: null,
    });
  }

  /** Posts an update to the bot's webhook with its secret, as the channel does. */
  async deliverUpdate(bot: EmulatedBot, update: object): Promise<UpdateDelivery> {
    if (!bot.webhook) return { delivered: false, status: null };
    try {
      const res = await webhookPoster.post(
        bot.webhook.url,
        JSON.stringify(update),
        bot.webhook.secret ? { [this.secretHeader]: bot.webhook.secret } : {},
        UPDATE_TIMEOUT_MS,
      );
      return { delivered: res.ok, status: res.status };
    } catch (err) {
      this.logger.debug(`update to ${bot.webhook.url} failed: ${err instanceof Error ? err.message : String(err)}`);
      return { delivered: false, status: null };
    }
  }

  clearCalls(): void {
    this.calls.clear();
  }

  clearFault(): void {
    this.fault = null;
  }

  /** Forgets bots, calls and the fault. */
  reset(): void {
    this.clearCalls();
    this.clearFault();
    this.bots.clear();
  }
}

export const TELEGRAM_EMULATOR = Symbol('TELEGRAM_EMULATOR');
export const MAX_EMULATOR = Symbol('MAX_EMULATOR');
