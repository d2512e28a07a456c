import { Injectable, Logger } from '@nestjs/common';
import { hubSignature, WhatsAppWebhookPayload } from '@app/channels';
import { SandboxConfig } from '../config';
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
}

/** Attempts per callback; Meta keeps retrying for days, the sandbox gives up quickly. */
const MAX_ATTEMPTS = 5;
const FIRST_RETRY_MS = 200;
const ATTEMPT_TIMEOUT_MS = 5000;

/** Sends signed WhatsApp webhooks to the gateway, as Meta does, and keeps a log of them. */
@Injectable()
export class WebhookDispatcher {
  private readonly logger = new Logger('WhatsAppWebhooks');
  private readonly log: WebhookDelivery[] = [];
  private seq = 0;

  constructor(
    private readonly config: SandboxConfig,
    private readonly clock: SandboxClock,
  ) {}

  get url(): string {
    return `${this.config.GATEWAY_PUBLIC_URL.replace(/\/+$/, '')}/v1/inbound/whatsapp`;
  }

  /** Delivers one payload, retrying on failure; resolves with the logged delivery. */
  async deliver(payload: WhatsAppWebhookPayload): Promise<WebhookDelivery> {
    const raw = JSON.stringify(payload);
    const entry: WebhookDelivery = {
      seq: ++this.seq,
      field: payload.entry[0]?.changes[0]?.field ?? 'unknown',
      payload,
      attempts: 0,
      status: null,
      delivered: false,
      at: Date.now(),
    };
    this.log.push(entry);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS && !this.clock.isStopped; attempt++) {
      entry.attempts = attempt;
      try {
        const res = await fetch(this.url, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            'User-Agent': 'facebookexternalua',
            'X-Hub-Signature-256': hubSignature(this.config.WHATSAPP_APP_SECRET, raw),
          },
          body: raw,
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        await res.arrayBuffer();
        entry.status = res.status;
        if (res.ok) {
          entry.delivered = true;
          return entry;
        }
      } catch (err) {
        entry.status = null;
        this.logger.debug(`webhook to ${this.url} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (attempt < MAX_ATTEMPTS && !(await this.clock.sleep(FIRST_RETRY_MS * 2 ** (attempt - 1)))) break;
    }
    this.logger.warn(`webhook ${entry.field} #${entry.seq} not delivered after ${entry.attempts} attempts`);
    return entry;
  }

  deliveries(): WebhookDelivery[] {
    return [...this.log];
  }

  clear(): void {
    this.log.length = 0;
  }
}
