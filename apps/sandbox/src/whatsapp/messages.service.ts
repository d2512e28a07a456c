import { Injectable, Logger } from '@nestjs/common';
import { GraphSendResponse, WebhookStatus, WebhookStatusError } from '@app/channels';
import { SenderArrivals } from '@app/contracts';
import { SandboxConfig } from '../config';
import { RecordWindow } from '../record-window';
import { GraphError, graphErrors } from './graph-error';
import { checkAgainstTemplate, validateMessage } from './message-validation';
import { PhoneNumbersService } from './phone-numbers.service';
import { PricingCategory, SandboxPricingService } from './pricing.service';
import { SandboxClock } from './sandbox-clock';
import { SandboxTemplatesService } from './templates.service';
import {
  DeliveryInProgress,
  MessagesContent,
  messagesWebhook,
  WebhookDelivery,
  WebhookDispatcher,
  WebhookSource,
} from './webhook-dispatcher';
import { pooledRandomBytes } from '../random-pool';
import { inboundWebhookContent, InboundRequest } from './inbound-kinds';

export type FaultMode = '429' | '500' | 'hang';
export type FaultScope = 'messages' | 'templates' | 'all';

export interface Fault {
  mode: FaultMode;
  /** Sends still affected; null until cleared. */
  remaining: number | null;
  retry_after_seconds: number;
  scope: FaultScope;
  phone_number_id: string | null;
}

/** One request that reached the emulated messages endpoint. */
export interface RecordedSend {
  seq: number;
  received_at: number;
  phone_number_id: string;
  endpoint: 'messages' | 'marketing_messages';
  body: unknown;
  /** The wamid the sandbox answered with; null when it refused or a fault answered. */
  wamid: string | null;
  outcome: 'accepted' | 'rejected' | 'fault';
  http_status: number;
  error: { code: number; message: string } | null;
}

type Step = { status: WebhookStatus['status']; error?: WebhookStatusError };

const UNDELIVERABLE: WebhookStatusError = {
  code: 131026,
  title: 'Message undeliverable',
  message: 'Message undeliverable',
  error_data: { details: 'Message Undeliverable: the recipient cannot receive WhatsApp messages.' },
};
const REENGAGEMENT: WebhookStatusError = {
  code: 131047,
  title: 'Re-engagement message',
  message: 'Re-engagement message',
  error_data: {
    details:
      'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
  },
};
const MARKETING_OPT_OUT: WebhookStatusError = {
  code: 131050,
  title:
    'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.',
  message:
    'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.',
  error_data: {
    details: 'The recipient has chosen to stop receiving marketing messages on WhatsApp from your business.',
  },
};

/**
 * The documented recipient rules (docs/sandbox.md): the last four digits pick what happens after
 * an accepted send (`5555`: a person who stopped marketing, so only marketing templates fail).
 */
export function statusPlan(recipient: string, category = 'utility'): Step[] | 'reject' {
  if (recipient.endsWith('3333')) return 'reject';
  if (recipient.endsWith('5555') && category.startsWith('marketing')) {
    return [{ status: 'failed', error: MARKETING_OPT_OUT }];
  }
  if (recipient.endsWith('0000')) return [{ status: 'sent' }, { status: 'failed', error: UNDELIVERABLE }];
  if (recipient.endsWith('4444')) return [{ status: 'failed', error: REENGAGEMENT }];
  if (recipient.endsWith('1111')) return [{ status: 'sent' }, { status: 'delivered' }];
  if (recipient.endsWith('2222')) return [{ status: 'sent' }, { status: 'read' }, { status: 'delivered' }];
  return [{ status: 'sent' }, { status: 'delivered' }, { status: 'read' }];
}

export const newWamid = (): string => `wamid.HBgL${pooledRandomBytes(27).toString('base64url')}`;

/** The emulated messages endpoint: validation, fault injection, the send log and status callbacks. */
@Injectable()
export class GraphMessagesService {
  private readonly logger = new Logger('WhatsAppMessages');
  private readonly sends: RecordWindow<RecordedSend>;
  /** Accepted sends per sending number, counted whole (the window of sends may have dropped some). */
  private readonly arrivalsBySender = new Map<string, SenderArrivals & { recent: number[] }>();
  private seq = 0;
  private fault: Fault | null = null;

  constructor(
    private readonly config: SandboxConfig,
    private readonly clock: SandboxClock,
    private readonly numbers: PhoneNumbersService,
    private readonly templates: SandboxTemplatesService,
    private readonly webhooks: WebhookDispatcher,
    private readonly pricing: SandboxPricingService,
  ) {
    this.sends = new RecordWindow(config.SANDBOX_RECORDS_MAX);
  }

  setFault(f: Omit<Fault, 'remaining'> & { count?: number | null }): Fault {
    this.fault = {
      mode: f.mode,
      remaining: f.count ?? null,
      retry_after_seconds: f.retry_after_seconds,
      scope: f.scope,
      phone_number_id: f.phone_number_id,
    };
    return this.fault;
  }

  currentFault(): Fault | null {
    return this.fault;
  }

  clearFault(): void {
    this.fault = null;
  }

  /** The fault that answers this request, if one is set for it (and counts it). */
  takeFault(scope: 'messages' | 'templates', phoneNumberId: string | null): Fault | null {
    const f = this.fault;
    if (!f || (f.scope !== 'all' && f.scope !== scope)) return null;
    if (f.phone_number_id && f.phone_number_id !== phoneNumberId) return null;
    if (f.remaining !== null) {
      f.remaining -= 1;
      if (f.remaining <= 0) this.fault = null;
    }
    return { ...f };
  }

  /** Records a send answered by a fault (the controller answers it). */
  recordFault(phoneNumberId: string, endpoint: RecordedSend['endpoint'], body: unknown, fault: Fault): void {
    const status = fault.mode === 'hang' ? 0 : Number(fault.mode);
    this.record(phoneNumberId, endpoint, body, null, 'fault', status, null);
  }

  send(phoneNumberId: string, endpoint: RecordedSend['endpoint'], body: unknown): GraphSendResponse {
    let wamid: string;
    let plan: Step[];
    // Null for a template the sandbox does not store: it cannot say what the channel would bill.
    let category: PricingCategory | null = 'service';
    try {
      const msg = validateMessage(body);
      const wabaId = this.numbers.wabaOf(phoneNumberId);
      if (msg.template) {
        const stored = this.templates.findForSend(msg.template.name, msg.template.language, wabaId);
        if (stored) {
          checkAgainstTemplate(stored, msg.template.components);
          category = stored.category.toLowerCase() as PricingCategory;
        } else if (this.config.SANDBOX_TEMPLATE_CHECK === 'strict') {
          throw graphErrors.templateMissing(
            this.templates.hasName(msg.template.name, wabaId)
              ? `Template ${msg.template.name} has no translation in ${msg.template.language}`
              : `Template ${msg.template.name} does not exist`,
          );
        } else {
          category = null;
        }
        if (endpoint === 'marketing_messages') category = 'marketing_lite';
      } else if (endpoint === 'marketing_messages') {
        throw graphErrors.invalidParameter('Only template messages can be sent through marketing_messages');
      }
      const p = statusPlan(msg.to, category ?? undefined);
      if (p === 'reject') throw graphErrors.undeliverable();
      plan = p;
      wamid = newWamid();
      this.record(phoneNumberId, endpoint, body, wamid, 'accepted', 200, null);
      this.scheduleStatuses(phoneNumberId, wamid, msg.to, plan, category, msg.callbackData);
      return {
        messaging_product: 'whatsapp',
        contacts: [{ input: String((body as { to: string }).to), wa_id: msg.to }],
        messages: [{ id: wamid, ...(msg.template ? { message_status: 'accepted' } : {}) }],
      };
    } catch (err) {
      if (err instanceof GraphError) {
        this.record(phoneNumberId, endpoint, body, null, 'rejected', err.httpStatus, {
          code: err.code,
          message: err.message,
        });
      }
      throw err;
    }
  }

  /** Sends received, in arrival order; by default only those the sandbox accepted. */
  list(filter: { include?: string; phone_number_id?: string; to?: string }): RecordedSend[] {
    return this.sends.filter(
      (s) =>
        (filter.include === 'all' || s.outcome === 'accepted') &&
        (!filter.phone_number_id || s.phone_number_id === filter.phone_number_id) &&
        (!filter.to || (s.body as { to?: string } | null)?.to === filter.to),
    );
  }

  /** How many sends were recorded in all and how many are kept. */
  counts(): { total: number; kept: number } {
    return this.sends.counts();
  }

  /** Accepted sends per sending number since the last clear: count, first and last arrival, busiest second. */
  arrivals(phoneNumberId?: string): SenderArrivals[] {
    return [...this.arrivalsBySender.values()]
      .filter((a) => !phoneNumberId || a.phone_number_id === phoneNumberId)
      .map(({ recent: _recent, ...a }) => a);
  }

  clear(): void {
    this.sends.clear();
    this.arrivalsBySender.clear();
  }

  /**
   * An inbound message from a recipient (opens the 24-hour window): a text or a reaction, or any
   * `kind` of inbound-kinds, its sender named in the chosen shape. `message_id` reuses a wamid, so
   * the same message can be delivered again as Meta repeats a webhook.
   */
  async inbound(
    input: InboundRequest & { phone_number_id: string; message_id?: string },
  ): Promise<{ id: string; webhook: WebhookDelivery }> {
    const id = input.message_id ?? newWamid();
    this.pricing.customerWrote(input.phone_number_id, input.from);
    // The answer tells how the first attempt went; a refused webhook keeps being retried.
    const webhook = await this.deliverMessages(
      input.phone_number_id,
      inboundWebhookContent(input, id, Math.floor(Date.now() / 1000)),
    ).first;
    return { id, webhook };
  }

  private record(
    phoneNumberId: string,
    endpoint: RecordedSend['endpoint'],
    body: unknown,
    wamid: string | null,
    outcome: RecordedSend['outcome'],
    httpStatus: number,
    error: RecordedSend['error'],
  ): void {
    const receivedAt = Date.now();
    if (outcome === 'accepted') this.countArrival(phoneNumberId, receivedAt);
    this.sends.push({
      seq: ++this.seq,
      received_at: receivedAt,
      phone_number_id: phoneNumberId,
      endpoint,
      body,
      wamid,
      outcome,
      http_status: httpStatus,
      error,
    });
  }

  private countArrival(phoneNumberId: string, at: number): void {
    let a = this.arrivalsBySender.get(phoneNumberId);
    if (!a) {
      a = { phone_number_id: phoneNumberId, count: 0, first_at: at, last_at: at, max_per_second: 0, recent: [] };
      this.arrivalsBySender.set(phoneNumberId, a);
    }
    a.count++;
    a.last_at = at;
    // The sends of the last second (as maxWithin counts them): the busiest second so far.
    a.recent.push(at);
    while (at - a.recent[0] >= 1000) a.recent.shift();
    a.max_per_second = Math.max(a.max_per_second, a.recent.length);
  }

  /**
   * Status callbacks one after another, each SANDBOX_STATUS_DELAY_MS after the previous one was
   * delivered; sent, delivered and read carry what the channel bills (decided at the send).
   */
  private scheduleStatuses(
    phoneNumberId: string,
    wamid: string,
    recipient: string,
    plan: Step[],
    category: PricingCategory | null,
    callbackData: string | undefined,
  ): void {
    const pricing = this.pricing.pricingOf(phoneNumberId, recipient, category);
    const conversation = {
      id: pooledRandomBytes(16).toString('hex'),
      expiration_timestamp: String(Math.floor(Date.now() / 1000) + 24 * 3600),
      origin: { type: category ?? 'utility' },
    };
    void (async () => {
      for (const step of plan) {
        if (!(await this.clock.sleep(this.config.SANDBOX_STATUS_DELAY_MS))) return;
        const status: WebhookStatus = {
          id: wamid,
          status: step.status,
          timestamp: String(Math.floor(Date.now() / 1000)),
          recipient_id: recipient,
          ...(callbackData !== undefined ? { biz_opaque_callback_data: callbackData } : {}),
          ...(step.status === 'sent' || step.status === 'delivered' ? { conversation } : {}),
          ...(pricing && step.status !== 'failed' ? { pricing } : {}),
          ...(step.error ? { errors: [step.error] } : {}),
        };
        await this.webhooks.deliverStatus(this.sourceOf(phoneNumberId), status);
      }
    })().catch((err: unknown) => this.logger.warn(`status callbacks for ${wamid} failed: ${String(err)}`));
  }

  private sourceOf(phoneNumberId: string): WebhookSource {
    const number = this.numbers.describe(phoneNumberId);
    return {
      waba_id: number.waba_id,
      metadata: {
        display_phone_number: number.display_phone_number.replace(/\D/g, ''),
        phone_number_id: phoneNumberId,
      },
    };
  }

  private deliverMessages(phoneNumberId: string, content: MessagesContent): DeliveryInProgress {
    return this.webhooks.start(messagesWebhook([{ source: this.sourceOf(phoneNumberId), content }]));
  }
}
