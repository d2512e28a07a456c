/**
 * WhatsApp Flows of a linked app's WhatsApp Business Account, as the gateway lists and publishes
 * them (docs/gateway.md#whatsapp-flows), and what a Flow send carries.
 */

/** A Flow's lifecycle on the channel: only a DRAFT can be published; a published Flow is never edited again. */
export const FLOW_STATUSES = ['DRAFT', 'PUBLISHED', 'DEPRECATED', 'BLOCKED', 'THROTTLED'] as const;
export type FlowStatus = (typeof FLOW_STATUSES)[number];

/** A Flow of the WABA: its id (sent as `flow_id`), name, status (a FlowStatus, or a newer one as the channel names it) and categories. */
export interface ChannelFlow {
  id: string;
  name: string;
  status: FlowStatus | string;
  categories: string[];
}

/** A page of the WABA's Flows; `next_cursor` asks for the next, null on the last. */
export interface ChannelFlowPage {
  data: ChannelFlow[];
  next_cursor: string | null;
}

/** Flows listed per page at most (Graph's own cap on `limit`). */
export const FLOW_PAGE_MAX = 100;

/** A copy-code button's coupon: the channel takes at most 15 characters. */
export const COUPON_CODE_MAX_LENGTH = 15;

/** The flow tokens the platform makes: `ft_` and 16 random (or Idempotency-Key derived) bytes, base64url. */
export const FLOW_TOKEN_PATTERN = /^ft_[A-Za-z0-9_-]{16,64}$/;
