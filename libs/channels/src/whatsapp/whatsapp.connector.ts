import {
  ChannelTemplate,
  OutboundMessage,
  SubmitTemplateReply,
  TemplateSubmission,
  UpdateTemplateReply,
  WhatsAppConnection,
} from '@app/contracts';
import { ChannelConnector, SendResult } from '../channel-connector';
import { classifyGraphFailure, GraphFailure, parseRetryAfter } from './graph-errors';
import {
  GraphErrorBody,
  GraphPage,
  GraphSendResponse,
  GraphTemplate,
  GraphTemplateCreateResponse,
} from './graph.types';
import { InvalidOutboundMessageError, messagesEndpoint, toGraphMessage } from './whatsapp-message.mapper';
import {
  fromGraphTemplate,
  fromGraphTemplateStatus,
  toGraphTemplateCreate,
  toGraphTemplateEdit,
} from './whatsapp-template.mapper';

export interface WhatsAppConnectorConfig {
  /** Graph API base URL: https://graph.facebook.com in production, the sandbox locally. */
  graphUrl: string;
  /** Graph API version path segment. */
  apiVersion?: string;
  /** One system-user access token of the business solution provider, valid for every WABA. */
  accessToken: string;
  /** Per request; a send that takes longer is abandoned and reported retryable. */
  timeoutMs?: number;
  /** Injected in unit specs. */
  fetch?: typeof fetch;
}

export const WHATSAPP_DEFAULT_API_VERSION = 'v21.0';
export const WHATSAPP_DEFAULT_TIMEOUT_MS = 10_000;

/** A template call the channel refused (`rejected`) or that could not reach it (`unavailable`). */
export class WhatsAppApiError extends Error {
  constructor(
    readonly kind: 'rejected' | 'unavailable',
    readonly code: string,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'WhatsAppApiError';
  }
}

type GraphOutcome<T> = { ok: true; status: number; body: T } | { ok: false; failure: GraphFailure };

/** Page size of template listing; Graph caps it at 100 (paging follows). */
const TEMPLATE_PAGE_SIZE = 100;
/** Stops a paging loop on a misbehaving cursor. */
const MAX_TEMPLATE_PAGES = 100;

/** WhatsApp Cloud API connector: message sends and template management through the Graph API. */
export class WhatsAppConnector implements ChannelConnector {
  readonly channel = 'whatsapp' as const;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly config: WhatsAppConnectorConfig) {
    if (!config.graphUrl) throw new Error('WhatsAppConnector: graphUrl is required');
    if (!config.accessToken) throw new Error('WhatsAppConnector: accessToken is required');
    this.baseUrl = `${config.graphUrl.replace(/\/+$/, '')}/${config.apiVersion || WHATSAPP_DEFAULT_API_VERSION}`;
    this.timeoutMs = config.timeoutMs ?? WHATSAPP_DEFAULT_TIMEOUT_MS;
    this.fetchFn = config.fetch ?? fetch;
  }

  async send(msg: OutboundMessage): Promise<SendResult> {
    if (msg.channel !== 'whatsapp') throw new Error(`WhatsAppConnector cannot send a ${msg.channel} message`);
    const phoneNumberId = msg.sender?.connection_id;
    if (!phoneNumberId) {
      return { ok: false, retryable: false, code: 'invalid_message', title: 'The message has no sending phone number' };
    }
    let body;
    try {
      body = toGraphMessage(msg);
    } catch (err) {
      if (err instanceof InvalidOutboundMessageError) {
        return { ok: false, retryable: false, code: 'invalid_message', title: err.message };
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
        code: 'invalid_response',
        title: 'The channel answered without a message id',
      };
    }
    return { ok: true, provider_message_id: id };
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

  private mapSubmission<T>(map: () => T): T {
    try {
      return map();
    } catch (err) {
      throw new WhatsAppApiError('rejected', 'invalid_template', err instanceof Error ? err.message : String(err));
    }
  }

  private async expect<T>(pending: Promise<GraphOutcome<T>>): Promise<T> {
    const outcome = await pending;
    if (outcome.ok) return outcome.body;
    const c = classifyGraphFailure(outcome.failure);
    throw new WhatsAppApiError(c.retryable ? 'unavailable' : 'rejected', c.code, c.title, c.retryAfterMs);
  }

  private async request<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    opts: { body?: unknown; query?: Record<string, string> } = {},
  ): Promise<GraphOutcome<T>> {
    const url = new URL(`${this.baseUrl}/${path}`);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
    let res: Response;
    let text: string;
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      res = await this.fetchFn(url, {
        method,
        headers: {
          Authorization: `Bearer ${this.config.accessToken}`,
          Accept: 'application/json',
          ...(opts.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        },
        body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
        signal,
      });
      text = await res.text();
    } catch (err) {
      if (signal.aborted) {
        return { ok: false, failure: { kind: 'timeout', timeoutMs: this.timeoutMs } };
      }
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : '';
      return {
        ok: false,
        failure: { kind: 'network', message: cause || (err instanceof Error ? err.message : String(err)) },
      };
    }
    const parsed = parseJson(text);
    if (res.ok) return { ok: true, status: res.status, body: (parsed ?? {}) as T };
    const graphError = (parsed as Partial<GraphErrorBody> | undefined)?.error;
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
    return {
      ok: false,
      failure: {
        kind: 'http',
        status: res.status,
        ...(typeof graphError?.code === 'number' ? { code: graphError.code } : {}),
        ...(typeof graphError?.error_subcode === 'number' ? { subcode: graphError.error_subcode } : {}),
        message:
          graphError?.error_data?.details || graphError?.message || `HTTP ${res.status} ${res.statusText}`.trim(),
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      },
    };
  }
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
