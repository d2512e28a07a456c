import {
  ChannelFlow,
  ChannelFlowPage,
  ChannelTemplate,
  OutboundMessage,
  SubmitTemplateReply,
  TemplateSubmission,
  UpdateTemplateReply,
  WhatsAppConnection,
} from '@app/contracts';
import {
  ChannelConnector,
  MediaUploader,
  MediaUploadResult,
  MediaUploadSource,
  PacingLimits,
  SendResult,
} from '../channel-connector';
import { uploadWhatsAppMedia } from './whatsapp-media-upload';
import { Clock } from '@app/server';
import {
  GraphClient,
  GraphClientConfig,
  GraphOutcome,
  WhatsAppApiError,
  WHATSAPP_DEFAULT_API_VERSION,
  WHATSAPP_DEFAULT_TIMEOUT_MS,
} from './graph-client';
import { classifyGraphFailure } from './graph-errors';
import { GraphFlow, GraphPage, GraphSendResponse, GraphTemplate, GraphTemplateCreateResponse } from './graph.types';
import { InvalidOutboundMessageError, messagesEndpoint, toGraphMessage } from './whatsapp-message.mapper';
import {
  fromGraphTemplate,
  fromGraphTemplateStatus,
  toGraphTemplateCreate,
  toGraphTemplateEdit,
} from './whatsapp-template.mapper';

export interface WhatsAppConnectorConfig extends GraphClientConfig {
  /** One system-user access token of the business solution provider, valid for every WABA. */
  accessToken: string;
  /** Per phone number: Cloud API throughput (80 messages/s by default) and the pair interval. */
  pacing?: Partial<PacingLimits>;
}

/** The Cloud API's default throughput per phone number, evenly spaced, one second between two messages to one recipient. */
export const WHATSAPP_DEFAULT_PACING: PacingLimits = { ratePerSender: 80, burst: 1, recipientIntervalMs: 1000 };

export { WhatsAppApiError, WHATSAPP_DEFAULT_API_VERSION, WHATSAPP_DEFAULT_TIMEOUT_MS };

/** Page size of template listing; Graph caps it at 100 (paging follows). */
const TEMPLATE_PAGE_SIZE = 100;
/** Stops a paging loop on a misbehaving cursor. */
const MAX_TEMPLATE_PAGES = 100;

/** WhatsApp Cloud API connector: message sends and template management through the Graph API. */
export class WhatsAppConnector implements ChannelConnector, MediaUploader {
  readonly channel = 'whatsapp' as const;
  readonly pacing: PacingLimits;
  private readonly graph: GraphClient;

  constructor(private readonly config: WhatsAppConnectorConfig) {
    if (!config.accessToken) throw new Error('WhatsAppConnector: accessToken is required');
    this.graph = new GraphClient(config);
    this.pacing = { ...WHATSAPP_DEFAULT_PACING, ...config.pacing };
  }

  get sendTimeoutMs(): number {
    return this.graph.timeoutMs;
  }

  async send(msg: OutboundMessage): Promise<SendResult> {
    if (msg.channel !== 'whatsapp') throw new Error(`WhatsAppConnector cannot send a ${msg.channel} message`);
    const phoneNumberId = msg.sender?.connection_id;
    if (!phoneNumberId) {
      return {
        ok: false,
        retryable: false,
        scope: 'message',
        code: 'invalid_message',
        title: 'The message has no sending phone number',
      };
    }
    let body;
    try {
      body = toGraphMessage(msg);
    } catch (err) {
      if (err instanceof InvalidOutboundMessageError) {
        return { ok: false, retryable: false, scope: 'message', code: 'invalid_message', title: err.message };
      }
      throw err;
    }
    const outcome = await this.request<GraphSendResponse>(
      'POST',
      `${encodeURIComponent(phoneNumberId)}/${messagesEndpoint(msg)}`,
      { body },
    );
    if (!outcome.ok) return { ok: false, ...classifyGraphFailure(outcome.failure) };
    const id = outcome.body?.messages?.[0]?.id;
    if (typeof id !== 'string' || !id) {
      // Accepted but without an id: retrying could send it twice, so it is not retried.
      return {
        ok: false,
        retryable: false,
        scope: 'message',
        code: 'invalid_response',
        title: 'The channel answered without a message id',
      };
    }
    return { ok: true, provider_message_id: id };
  }

  /**
   * Uploads a media library file to the sending number (docs/media.md): the media id it answers
   * sends it from then on, for 30 days.
   */
  uploadMedia(msg: OutboundMessage, file: MediaUploadSource): Promise<MediaUploadResult> {
    const base = `${this.config.graphUrl.replace(/\/+$/, '')}/${this.config.apiVersion || WHATSAPP_DEFAULT_API_VERSION}`;
    return uploadWhatsAppMedia(
      {
        baseUrl: base,
        accessToken: this.config.accessToken,
        timeoutMs: this.sendTimeoutMs,
        nowSeconds: () => (this.config.clock ?? new Clock()).nowSeconds(),
      },
      msg.sender.connection_id,
      file,
    );
  }

  /**
   * Marks a customer's message read and shows the typing indicator while a reply is written:
   * `POST /{phone_number_id}/messages` with `status: read` (docs/conversations.md). False when the
   * channel refused it (a read marker is a courtesy: nothing waits on it).
   */
  async markRead(phoneNumberId: string, providerMessageId: string): Promise<boolean> {
    const outcome = await this.request<{ success?: boolean }>('POST', `${encodeURIComponent(phoneNumberId)}/messages`, {
      body: {
        messaging_product: 'whatsapp',
        status: 'read',
        message_id: providerMessageId,
        typing_indicator: { type: 'text' },
      },
    });
    return outcome.ok;
  }

  /** Submits a template for moderation: `POST /{waba_id}/message_templates`. */
  async submitTemplate(connection: WhatsAppConnection, submission: TemplateSubmission): Promise<SubmitTemplateReply> {
    const body = this.mapSubmission(() => toGraphTemplateCreate(submission));
    const res = await this.expect<GraphTemplateCreateResponse>(
      this.request('POST', `${encodeURIComponent(connection.waba_id)}/message_templates`, { body }),
    );
    if (!res.id)
      throw new WhatsAppApiError('unavailable', 'invalid_response', 'The channel answered without a template id');
    return { wa_id: String(res.id), status: fromGraphTemplateStatus(res.status ?? 'PENDING') };
  }

  /** Edits a template, which sends it for moderation again: `POST /{template_id}`. */
  async updateTemplate(waId: string, submission: TemplateSubmission): Promise<UpdateTemplateReply> {
    const body = this.mapSubmission(() => toGraphTemplateEdit(submission));
    await this.expect<{ success: boolean }>(this.request('POST', encodeURIComponent(waId), { body }));
    return { status: 'PENDING' };
  }

  /** `DELETE /{waba_id}/message_templates?hsm_id=&name=` removes that one template (not its other languages). */
  async deleteTemplate(connection: WhatsAppConnection, name: string, waId: string): Promise<void> {
    await this.expect<{ success: boolean }>(
      this.request('DELETE', `${encodeURIComponent(connection.waba_id)}/message_templates`, {
        query: { hsm_id: waId, name },
      }),
    );
  }

  /** Every template of the WABA, following the paging cursors. */
  async listTemplates(connection: WhatsAppConnection): Promise<ChannelTemplate[]> {
    const out: ChannelTemplate[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_TEMPLATE_PAGES; page++) {
      const res = await this.expect<GraphPage<GraphTemplate>>(
        this.request('GET', `${encodeURIComponent(connection.waba_id)}/message_templates`, {
          query: {
            fields: 'id,name,language,status,category,quality_score,rejected_reason',
            limit: String(TEMPLATE_PAGE_SIZE),
            ...(after ? { after } : {}),
          },
        }),
      );
      out.push(...(res.data ?? []).map(fromGraphTemplate));
      after = res.paging?.next ? res.paging.cursors?.after : undefined;
      if (!after) return out;
    }
    throw new WhatsAppApiError(
      'unavailable',
      'paging_loop',
      `template listing did not end after ${MAX_TEMPLATE_PAGES} pages`,
    );
  }

  /**
   * One page of the WABA's Flows, `GET /{waba_id}/flows` (id, name, status, categories), from the
   * cursor a previous page gave; `next_cursor` is null on the last page.
   */
  async listFlows(wabaId: string, page: { limit: number; after?: string }): Promise<ChannelFlowPage> {
    const res = await this.expect<GraphPage<GraphFlow>>(
      this.request('GET', `${encodeURIComponent(wabaId)}/flows`, {
        query: {
          fields: 'id,name,status,categories',
          limit: String(page.limit),
          ...(page.after ? { after: page.after } : {}),
        },
      }),
    );
    const data = (res.data ?? []).map((f): ChannelFlow => ({
      id: String(f.id),
      name: String(f.name ?? ''),
      status: String(f.status ?? ''),
      categories: Array.isArray(f.categories) ? f.categories.map(String) : [],
    }));
    const after = res.paging?.next ? res.paging.cursors?.after : undefined;
    return { data, next_cursor: after ?? null };
  }

  /** The business account a Flow belongs to, `GET /{flow_id}?fields=whatsapp_business_account`. */
  async flowWaba(flowId: string): Promise<string | null> {
    const res = await this.expect<{ whatsapp_business_account?: { id?: unknown } }>(
      this.request('GET', encodeURIComponent(flowId), { query: { fields: 'id,whatsapp_business_account' } }),
    );
    const id = res.whatsapp_business_account?.id;
    return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
  }

  /** Publishes a DRAFT Flow, `POST /{flow_id}/publish`; the channel refuses any other status. */
  async publishFlow(flowId: string): Promise<void> {
    await this.expect<{ success: boolean }>(this.request('POST', `${encodeURIComponent(flowId)}/publish`));
  }

  /**
   * The number's state on the channel: `GET /{phone_number_id}?fields=quality_rating,messaging_limit_tier,status`.
   * Throws a WhatsAppApiError when the channel refuses or cannot be reached.
   */
  async numberHealth(
    phoneNumberId: string,
  ): Promise<{ quality_rating: string | null; messaging_limit_tier: string | null; status: string | null }> {
    const res = await this.expect<{ quality_rating?: unknown; messaging_limit_tier?: unknown; status?: unknown }>(
      this.request('GET', encodeURIComponent(phoneNumberId), {
        query: { fields: 'quality_rating,messaging_limit_tier,status' },
      }),
    );
    const text = (v: unknown) => (typeof v === 'string' && v ? v : null);
    return {
      quality_rating: text(res.quality_rating),
      messaging_limit_tier: text(res.messaging_limit_tier),
      status: text(res.status),
    };
  }

  private mapSubmission<T>(map: () => T): T {
    try {
      return map();
    } catch (err) {
      throw new WhatsAppApiError('rejected', 'invalid_template', err instanceof Error ? err.message : String(err));
    }
  }

  private expect<T>(pending: Promise<GraphOutcome<T>>): Promise<T> {
    return this.graph.expect(pending);
  }

  private request<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    opts: { body?: unknown; query?: Record<string, string> } = {},
  ): Promise<GraphOutcome<T>> {
    return this.graph.request<T>(method, path, { ...opts, token: this.config.accessToken });
  }
}
