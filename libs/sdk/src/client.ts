import createClient, { Client } from 'openapi-fetch';
import { randomUUID } from 'node:crypto';
import type { components as ApiComponents, paths as ApiPaths } from './generated/api';
import type { components as GatewayComponents, operations, paths as GatewayPaths } from './generated/gateway';
import { CursorPage, paginate } from './pages';
import { campaignsClient } from './campaigns';
import { contactsClient } from './contacts';
import { RetryOptions, retryingFetch } from './retry';
import { unwrap, waitUntil, WaitOptions } from './shared';

export { MessagingError, unwrap } from './shared';
export type { Problem, WaitOptions } from './shared';

export type GatewaySend = GatewayComponents['schemas']['SendGatewayMessageDto'];
export type GatewaySendAccepted = GatewayComponents['schemas']['SendGatewayMessageResponseDto'];
export type MessageReport = GatewayComponents['schemas']['MessageReportDto'];
export type CourseEvent = GatewayComponents['schemas']['CourseEventDto'];
export type MessageQuery = Omit<NonNullable<operations['GatewayMessages_list']['parameters']['query']>, 'cursor'>;
export type CourseEventQuery = Omit<NonNullable<operations['Course_listEvents']['parameters']['query']>, 'cursor'>;
export type ApiSend = ApiComponents['schemas']['SendMessageDto'];
export type ApiMessageStatus = ApiComponents['schemas']['MessageStatusDto'];

export interface ClientOptions {
  /** The service's public URL: `https://api.example` (the api), `https://gateway.example` (the gateway). */
  baseUrl: string;
  /** The bearer token: a system user's token (the api), an account token `gk_…` (the gateway). */
  token: string;
  retry?: RetryOptions;
  /** The fetch to send with (default globalThis.fetch). */
  fetch?: (input: Request) => Promise<Response>;
}

export interface SendOptions {
  /**
   * Makes the send idempotent: a repeat with the same key gets the first answer. A key is made for
   * every send without one, and kept across its retries.
   */
  idempotencyKey?: string;
}

function typedClient<Paths extends object>(options: ClientOptions, prefix: string): Client<Paths> {
  return createClient<Paths>({
    baseUrl: `${options.baseUrl.replace(/\/+$/, '')}${prefix}`,
    headers: { Authorization: `Bearer ${options.token}` },
    fetch: retryingFetch(options.retry, { fetch: options.fetch }),
  });
}

/**
 * Whether a message's status is final: FAILED or READ; DELIVERED on WhatsApp (charged; only a read
 * receipt may follow); SENT on Telegram and MAX, which report no delivery or read receipts to bots.
 */
export function isFinalStatus(report: { status: string; channel?: string }): boolean {
  if (report.status === 'FAILED' || report.status === 'READ') return true;
  if (report.status === 'DELIVERED') return true;
  return report.status === 'SENT' && report.channel !== undefined && report.channel !== 'whatsapp';
}

/**
 * The gateway's client: `http` has every operation of its OpenAPI document, typed; the methods add
 * what a generator cannot: a key per send, kept across retries; pages as one iteration; waiting
 * for a message's final status. Every request is retried on 429 and 503 as RetryOptions say.
 */
export function createGatewayClient(options: ClientOptions) {
  const http = typedClient<GatewayPaths>(options, '');
  return {
    http,
    /** Contacts, and imports of a CSV or NDJSON file streamed from disk or a stream. */
    contacts: contactsClient(http, options),
    /** Campaigns: create, estimate, launch, wait for the end, and page through the report. */
    campaigns: campaignsClient(http),
    /** `POST /v1/messages`: a template on a connected channel; resolves once it is queued. */
    async send(
      message: GatewaySend,
      { idempotencyKey = randomUUID() }: SendOptions = {},
    ): Promise<GatewaySendAccepted> {
      return unwrap(
        await http.POST('/v1/messages', { body: message, params: { header: { 'Idempotency-Key': idempotencyKey } } }),
      );
    },
    /** `GET /v1/messages/{id}`: the delivery report. */
    async message(id: string): Promise<MessageReport> {
      return unwrap(await http.GET('/v1/messages/{id}', { params: { path: { id } } }));
    },
    /** Every message of the account matching `query`, newest first, a page at a time. */
    messages(query: MessageQuery = {}): AsyncGenerator<MessageReport> {
      return paginate(async (cursor): Promise<CursorPage<MessageReport>> =>
        unwrap(await http.GET('/v1/messages', { params: { query: { ...query, cursor } } })),
      );
    },
    /** Every course event of the account matching `query`, newest first, a page at a time. */
    courseEvents(query: CourseEventQuery = {}): AsyncGenerator<CourseEvent> {
      return paginate(async (cursor): Promise<CursorPage<CourseEvent>> =>
        unwrap(await http.GET('/v1/course/events', { params: { query: { ...query, cursor } } })),
      );
    },
    /** Reads the report until the message's status is final (isFinalStatus). */
    waitForFinalStatus(id: string, wait: WaitOptions = {}): Promise<MessageReport> {
      return waitUntil(() => this.message(id), isFinalStatus, `message ${id}`, wait);
    },
  };
}

export type GatewayClient = ReturnType<typeof createGatewayClient>;

/**
 * The api's client: `http` has every operation of its OpenAPI document, typed (paths under
 * `/api`); the methods send with a key per send, kept across retries, and wait for a final status.
 */
export function createApiClient(options: ClientOptions) {
  const http = typedClient<ApiPaths>(options, '/api');
  return {
    http,
    /** `POST /v1/wa/apps/{appId}/messages`: a WhatsApp message of the app. */
    async send(appId: number | string, message: ApiSend, { idempotencyKey = randomUUID() }: SendOptions = {}) {
      return unwrap(
        await http.POST('/v1/wa/apps/{appId}/messages', {
          body: message,
          params: { path: { appId: String(appId) }, header: { 'Idempotency-Key': idempotencyKey } },
        }),
      );
    },
    /** `GET /v1/wa/apps/{appId}/messages/{messageId}`: the message's status and timeline. */
    async message(appId: number | string, messageId: string): Promise<ApiMessageStatus> {
      return unwrap(
        await http.GET('/v1/wa/apps/{appId}/messages/{messageId}', {
          params: { path: { appId: String(appId), messageId } },
        }),
      );
    },
    /** Reads the message until its status is final (isFinalStatus; the api sends on WhatsApp). */
    waitForFinalStatus(appId: number | string, messageId: string, wait: WaitOptions = {}): Promise<ApiMessageStatus> {
      return waitUntil(
        () => this.message(appId, messageId),
        (m) => isFinalStatus({ status: m.status, channel: 'whatsapp' }),
        `message ${messageId}`,
        wait,
      );
    },
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;
