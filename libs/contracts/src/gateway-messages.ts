import type { GatewaySendChannel, MessageCategory, PricingType } from './channels';
import type { MessageStatus } from './events';
import type { RenderedAs, SendContent } from './content';

/**
 * Sends and the delivery report of the gateway's accounts, served by the api (owner of messages,
 * templates and balances) so that both surfaces share one send path: the same template rules,
 * holds, tiers, lanes, idempotency and status handling.
 */
export const GATEWAY_MESSAGES_RPC = {
  send: 'messages.gateway.send',
  /**
   * Sends made together, in one request: each is accepted as by `send` (the same enqueue, group
   * commit and idempotency) and answered with its own result or problem, in order.
   */
  sendBatch: 'messages.gateway.send_batch',
  get: 'messages.gateway.get',
  list: 'messages.gateway.list',
  /** The usage report of the account's user (every surface's sends). */
  usage: 'messages.gateway.usage',
  /** What the gateway needs to record a tracking pixel open as a read: the message's owner and status. */
  readTarget: 'messages.gateway.read_target',
  /** The money charged per campaign of the account's user in a period, a page of campaigns at a time. */
  campaignSpend: 'messages.gateway.campaign_spend',
  /**
   * The WhatsApp 24-hour windows of an app's recipients as the send check decides them: the
   * conversations show the window the api's store says, never one of their own.
   */
  windows: 'messages.gateway.windows',
} as const;

export interface GatewaySendRequest {
  account_id: string;
  user_id: string;
  channel: GatewaySendChannel;
  to: string;
  /**
   * The linked WhatsApp app whose APPROVED templates the account sends (and, on WhatsApp, its
   * number); null for a content send on Telegram or MAX from an account with no WhatsApp app.
   */
  template_app_id: number | null;
  /** A template send: the template's name. Exactly one of `template` and `content`. */
  template?: string;
  /** A free-form send (a service message): text, or media by URL. */
  content?: SendContent;
  language?: string;
  /** One value per variable of the template: header, then body, then URL buttons, in order. */
  params: string[];
  /** IMAGE, VIDEO and DOCUMENT templates: the media to send with it. */
  media_url?: string;
  /** Bot channels: the gateway connection that sends and its token, sealed with the shared key. */
  sender?: { connection_id: string; credential: string };
  /** An Idempotency-Key given with the request, with the request's hash. */
  idempotency?: { key: string; hash: string } | null;
  /**
   * A send to a contact over several channels (docs/failover.md): each channel to try, in order,
   * with the contact's address there and its sender; `channel`, `to` and `sender` are the first.
   */
  route?: FailoverStep[];
  /** A send to a contact: the contact, kept on the message for its report. */
  contact?: MessageContact;
  /** A template send: the coupon code of its COPY_CODE button (at most 15 characters). */
  coupon_code?: string;
  /**
   * A template send that may reach WhatsApp: the flow token the gateway made, put in the
   * template's FLOW button when it has one (the answer's `flow_token` says it was).
   */
  flow_token?: string;
}

/** One channel of a failover route. */
export interface FailoverStep {
  channel: GatewaySendChannel;
  to: string;
  sender?: { connection_id: string; credential: string };
}

/** One attempt of a message sent over a failover route, as its report shows it. */
export interface MessageAttempt {
  channel: string;
  status: MessageStatus;
  failure: { code: string | null; reason: string | null } | null;
  created_at: number;
  updated_at: number;
  /** What this channel was asked to send for a content send (see MessageReport.rendered_as). */
  rendered_as: RenderedAs | null;
}

export interface GatewaySendResult {
  id: string;
  status: 'QUEUED';
  /** True when this answers an earlier request with the same Idempotency-Key. */
  replayed: boolean;
  /** A template send whose FLOW button carries the request's `flow_token`: that token. */
  flow_token?: string;
}

/** At most this many recipients per windows request (a page of conversations). */
export const SERVICE_WINDOWS_MAX = 100;

export interface ServiceWindowsRequest {
  app_id: number;
  /** The customers' WhatsApp addresses (phone digits or business-scoped user ids), at most SERVICE_WINDOWS_MAX. */
  recipients: string[];
}

/** A recipient's 24-hour window: open exactly when a free-form send to it is accepted. */
export interface ServiceWindow {
  recipient: string;
  open: boolean;
  /** Unix seconds when it closes; null before the customer's first message. */
  expires_at: number | null;
}

export interface ServiceWindowsResult {
  /** One per recipient asked, in the order asked. */
  windows: ServiceWindow[];
}

/** The one delivery report of a message, whatever its channel: never its content. */
export interface MessageReport {
  id: string;
  channel: string;
  status: MessageStatus;
  category: MessageCategory;
  /** The recipient, masked. */
  to: string | null;
  /** The price held at send: the category's (`category`). */
  price: number;
  /**
   * Once charged: the category the charge followed (what the channel billed, else `category`),
   * the channel's pricing type when it gave one, and the amount charged (0 when not billed).
   */
  billed_category: MessageCategory | null;
  pricing_type: PricingType | null;
  charged: number | null;
  currency: string;
  created_at: number;
  updated_at: number;
  failure: { code: string | null; reason: string | null } | null;
  timeline: { status: string; timestamp: number }[];
  /** A send over a failover route: every attempt in order; `channel` is the one that carried it. */
  attempts?: MessageAttempt[];
  /** The campaign it was sent for; null for other sends. */
  campaign_id: string | null;
  /** The contact it was sent to (a send with `contact`, a campaign's recipient); null for a send to an address. */
  contact: MessageContact | null;
  /**
   * A content send: what its channel was asked to send, native or by a declared fallback (a list
   * drawn as buttons on MAX, a Flow as a link on Telegram); null for a template send.
   */
  rendered_as: RenderedAs | null;
}

/** The contact a message was sent to: its id and its external id (null when it had none). */
export interface MessageContact {
  id: string;
  external_id: string | null;
}

export interface GetMessageReportRequest {
  account_id: string;
  id: string;
}

/** The reply tells apart a message of another account (403) from no message at all (404). */
export type GetMessageReportResult = { found: true; report: MessageReport } | { found: false; other_account: boolean };

export interface ListMessageReportsRequest {
  account_id: string;
  channel?: string;
  status?: MessageStatus;
  /** Unix seconds, inclusive / exclusive, on the acceptance time. */
  from?: number;
  to?: number;
  /** Only the messages of this campaign (a UUID). */
  campaign_id?: string;
  /** Only the messages sent to this contact. */
  contact_id?: string;
  cursor?: string;
  limit: number;
}

export interface ListMessageReportsResult {
  data: MessageReport[];
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

/** One open of a message's tracking pixel, stored in the INBOUND stream until it is recorded. */
export interface PixelOpen {
  message_id: string;
  /** Unix seconds of the request. */
  opened_at: number;
}

export interface ReadTargetRequest {
  /** A message id proven by a tracking pixel token. */
  id: string;
}

/**
 * The gateway message a pixel open would mark READ, with what its `message.read` event carries
 * (its owner, so the status is accepted for that owner and its webhooks go to that tenant).
 */
export type ReadTargetResult =
  | { found: false }
  | {
      found: true;
      message_id: string;
      channel: string;
      status: MessageStatus;
      app_id: number | null;
      user_id: string;
      recipient: string;
      category: MessageCategory;
      /** The campaign it belongs to (its events name it); absent for other sends. */
      campaign_id?: string | null;
    };
