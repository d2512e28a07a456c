import { Injectable, Logger } from '@nestjs/common';
import { hubSignature, MessagesChangeValue, WebhookEntry, WebhookStatus, WhatsAppWebhookPayload } from '@app/channels';
import { webhookPoster } from '../webhook-post';
import { SandboxConfig } from '../config';
import { RecordWindow } from '../record-window';
import { SandboxClock } from './sandbox-clock';

export interface WebhookDelivery {
  seq: number;
  /** The change field: messages or message_template_status_update. */
  field: string;
  payload: WhatsAppWebhookPayload;
  attempts: number;
  /** The gateway's last HTTP status, or null when it could not be reached. */
  status: number | null;
  delivered: boolean;
  at: number;
  /** When the next retry goes out (epoch ms), or null when delivered or given up. */
  next_attempt_at: number | null;
}

const ATTEMPT_TIMEOUT_MS = 5000;

/**
 * Status webhooks to the receiver whose first attempt is under way at once; statuses that become
 * due while all are busy wait and leave together in the next free one.
 */
export const STATUS_WEBHOOKS_IN_FLIGHT = 8;
/** The most statuses one webhook carries (Meta aggregates up to 1,000 updates per notification). */
export const STATUSES_PER_WEBHOOK = 100;

/** The business account and number a `messages` change is about, as the webhook names them. */
export interface WebhookSource {
  waba_id: string;
  metadata: MessagesChangeValue['metadata'];
}

/** What a `messages` change says (statuses, or inbound messages and their contacts). */
export type MessagesContent = Omit<MessagesChangeValue, 'messaging_product' | 'metadata'>;

interface DueStatus {
  source: WebhookSource;
  status: WebhookStatus;
  done: (delivery: WebhookDelivery) => void;
}

/** A delivery under way: `first` settles after the first attempt, `settled` once delivered or given up. */
export interface DeliveryInProgress {
  first: Promise<WebhookDelivery>;
  settled: Promise<WebhookDelivery>;
}

/**
 * Sends signed WhatsApp webhooks to the gateway, as Meta does, and keeps a log of them. A webhook
 * the gateway does not answer with 2xx is retried with a doubling wait until it is, for
 * SANDBOX_WEBHOOK_RETRY_FOR_MS: a gateway that restarts or loses its database loses no status,
 * as with the real channel.
 */
@Injectable()
export class WebhookDispatcher {
  private readonly logger = new Logger('WhatsAppWebhooks');
  private readonly log: RecordWindow<WebhookDelivery>;
  /** Attempts of every webhook since the last clear, those dropped from the log included. */
  private attempts = 0;
  private seq = 0;
  private readonly due: DueStatus[] = [];
  private statusCallsInFlight = 0;

  constructor(
    private readonly config: SandboxConfig,
    private readonly clock: SandboxClock,
  ) {
    this.log = new RecordWindow(config.SANDBOX_RECORDS_MAX);
  }

  get url(): string {
    return `${this.config.GATEWAY_PUBLIC_URL.replace(/\/+$/, '')}/v1/inbound/whatsapp`;
  }

  /** Delivers one payload; resolves once the gateway took it, or when the retries ran out. */
  deliver(payload: WhatsAppWebhookPayload): Promise<WebhookDelivery> {
    return this.start(payload).settled;
  }

  /** Starts delivering one payload (logged at once); retries go on after the first attempt. */
  start(payload: WhatsAppWebhookPayload): DeliveryInProgress {
    const raw = JSON.stringify(payload);
    const entry: WebhookDelivery = {
      seq: ++this.seq,
      field: payload.entry[0]?.changes[0]?.field ?? 'unknown',
      payload,
      attempts: 0,
      status: null,
      delivered: false,
      at: Date.now(),
      next_attempt_at: null,
    };
    this.log.push(entry);
    let firstDone!: (e: WebhookDelivery) => void;
    const first = new Promise<WebhookDelivery>((resolve) => (firstDone = resolve));
    const settled = this.retry(entry, raw, () => firstDone(entry)).finally(() => firstDone(entry));
    return { first, settled };
  }

  /**
   * Delivers one message status; resolves once the webhook that carried it was taken, or its
   * retries ran out. While fewer than STATUS_WEBHOOKS_IN_FLIGHT status webhooks are on their first
   * attempt a status leaves at once, alone; otherwise it waits for the next free one, which
   * carries every status waiting then (up to STATUSES_PER_WEBHOOK), grouped by business account
   * and number, as Meta aggregates notifications when a receiver falls behind.
   */
  deliverStatus(source: WebhookSource, status: WebhookStatus): Promise<WebhookDelivery> {
    return new Promise((done) => {
      this.due.push({ source, status, done });
      this.sendDueStatuses();
    });
  }

  private sendDueStatuses(): void {
    while (this.due.length && this.statusCallsInFlight < STATUS_WEBHOOKS_IN_FLIGHT) {
      const batch = this.due.splice(0, STATUSES_PER_WEBHOOK);
      const delivery = this.start(statusPayload(batch));
      this.statusCallsInFlight++;
      void delivery.first.then(() => {
        this.statusCallsInFlight--;
        this.sendDueStatuses();
      });
      void delivery.settled.then((entry) => {
        for (const s of batch) s.done(entry);
      });
    }
  }

  private async retry(entry: WebhookDelivery, raw: string, afterFirst: () => void): Promise<WebhookDelivery> {
    const giveUpAt = entry.at + this.config.SANDBOX_WEBHOOK_RETRY_FOR_MS;
    let wait = this.config.SANDBOX_WEBHOOK_RETRY_FIRST_DELAY_MS;
    while (!this.clock.isStopped) {
      entry.attempts++;
      this.attempts++;
      await this.attempt(entry, raw);
      afterFirst();
      if (entry.delivered) {
        entry.next_attempt_at = null;
        return entry;
      }
      if (Date.now() + wait > giveUpAt) break;
      entry.next_attempt_at = Date.now() + wait;
      if (!(await this.clock.sleep(wait))) break;
      wait = Math.min(wait * 2, this.config.SANDBOX_WEBHOOK_RETRY_MAX_DELAY_MS);
    }
    entry.next_attempt_at = null;
    if (!this.clock.isStopped) {
      this.logger.warn(`webhook ${entry.field} #${entry.seq} not delivered after ${entry.attempts} attempts`);
    }
    return entry;
  }

  private async attempt(entry: WebhookDelivery, raw: string): Promise<void> {
    try {
      const res = await webhookPoster.post(
        this.url,
        raw,
        {
          'User-Agent': 'facebookexternalua',
          'X-Hub-Signature-256': hubSignature(this.config.WHATSAPP_APP_SECRET, raw),
        },
        ATTEMPT_TIMEOUT_MS,
      );
      entry.status = res.status;
      entry.delivered = res.ok;
    } catch (err) {
      entry.status = null;
      this.logger.debug(`webhook to ${this.url} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  deliveries(): WebhookDelivery[] {
    return this.log.kept();
  }

  /** How many webhooks were started in all, how many are kept, and their attempts in all. */
  counts(): { total: number; kept: number; attempts: number } {
    return { ...this.log.counts(), attempts: this.attempts };
  }

  clear(): void {
    this.log.clear();
    this.attempts = 0;
  }
}

/**
 * A `messages` webhook with a change per part, the changes of one business account in one entry.
 */
export function messagesWebhook(parts: { source: WebhookSource; content: MessagesContent }[]): WhatsAppWebhookPayload {
  const entries = new Map<string, WebhookEntry>();
  for (const { source, content } of parts) {
    let entry = entries.get(source.waba_id);
    if (!entry) entries.set(source.waba_id, (entry = { id: source.waba_id, changes: [] }));
    const value: MessagesChangeValue = { messaging_product: 'whatsapp', metadata: source.metadata, ...content };
    entry.changes.push({ field: 'messages', value });
  }
  return { object: 'whatsapp_business_account', entry: [...entries.values()] };
}

/** One webhook for statuses of any numbers: a change per number with its statuses in order. */
function statusPayload(batch: DueStatus[]): WhatsAppWebhookPayload {
  const byNumber = new Map<string, { source: WebhookSource; content: { statuses: WebhookStatus[] } }>();
  for (const { source, status } of batch) {
    const number = source.metadata.phone_number_id;
    const part = byNumber.get(number) ?? { source, content: { statuses: [] } };
    byNumber.set(number, part);
    part.content.statuses.push(status);
  }
  return messagesWebhook([...byNumber.values()]);
}
