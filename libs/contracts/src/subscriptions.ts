import { EVENT_TYPES, EventType } from './events';

/**
 * Request/reply between the api (HTTP surface of event subscriptions) and the webhooks service
 * (owner of subscriptions, deliveries and attempts). Patterns are put under the topology prefix by
 * the transport.
 */
export const SUBSCRIPTIONS_RPC = {
  create: 'webhooks.subscriptions.create',
  list: 'webhooks.subscriptions.list',
  get: 'webhooks.subscriptions.get',
  update: 'webhooks.subscriptions.update',
  remove: 'webhooks.subscriptions.delete',
  rotateSecret: 'webhooks.subscriptions.rotate_secret',
  sendTest: 'webhooks.subscriptions.test',
  listAttempts: 'webhooks.subscriptions.attempts',
  listDeliveries: 'webhooks.subscriptions.deliveries',
  pageDeliveries: 'webhooks.subscriptions.delivery_page',
  resend: 'webhooks.subscriptions.resend',
} as const;

/** Subscribes to every event type, present and future. */
export const ALL_EVENTS = '*';
export type EventFilter = EventType | typeof ALL_EVENTS;

export const SUBSCRIPTION_STATUSES = ['ACTIVE', 'DISABLED'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export type AttemptStatus = 'SUCCEEDED' | 'FAILED';

export const SUBSCRIPTION_LIMITS = {
  urlMaxLength: 2048,
  descriptionMaxLength: 500,
  listMax: 100,
  listDefault: 50,
} as const;

/**
 * Normalizes a subscription's event filter: `"*"` or a non-empty list of known event types (which
 * may contain `"*"`). Returns null when the value is not a valid filter. A list holding `"*"`
 * collapses to `["*"]`; duplicates are dropped; order follows EVENT_TYPES.
 */
export function normalizeEventFilter(value: unknown): EventFilter[] | null {
  if (value === ALL_EVENTS) return [ALL_EVENTS];
  if (!Array.isArray(value) || value.length === 0 || value.length > EVENT_TYPES.length + 1) return null;
  const given = new Set<string>();
  for (const v of value) {
    if (typeof v !== 'string') return null;
    if (v !== ALL_EVENTS && !(EVENT_TYPES as readonly string[]).includes(v)) return null;
    given.add(v);
  }
  if (given.has(ALL_EVENTS)) return [ALL_EVENTS];
  return EVENT_TYPES.filter((t) => given.has(t));
}

/** A subscription as the API shows it (the secret is shown only on creation and rotation). */
export interface SubscriptionView {
  id: string;
  url: string;
  events: EventFilter[];
  app_id: number | null;
  description: string | null;
  status: SubscriptionStatus;
  /** Why it was disabled (410 Gone, failing for too long), when it is. */
  disabled_reason: string | null;
  /** Unix seconds. */
  disabled_at: number | null;
  /** Until when the previous secret still signs deliveries after a rotation (Unix seconds). */
  previous_secret_expires_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface CreatedSubscriptionView extends SubscriptionView {
  /** `whsec_` + base64 of 32 random bytes; shown once. */
  secret: string;
}

export interface RotatedSecretView {
  id: string;
  secret: string;
  /** Until when the previous secret also signs deliveries (Unix seconds). */
  previous_secret_expires_at: number;
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  /** Unix seconds; null when no further attempt is planned. */
  next_attempt_at: number | null;
  last_attempt_at: number | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: number;
}

export interface AttemptView {
  id: string;
  delivery_id: string;
  event_id: string;
  event_type: string;
  /** 1 for the first attempt of a delivery. */
  attempt: number;
  status: AttemptStatus;
  response_status: number | null;
  latency_ms: number;
  /** The first 1 KiB of the response body. */
  response_excerpt: string | null;
  error: string | null;
  /** When the next attempt is planned after this one (Unix seconds), if any. */
  next_retry_at: number | null;
  created_at: number;
}

export interface TestEventView {
  event_id: string;
  delivery_id: string;
}

export interface ResendView {
  delivery_id: string;
  status: DeliveryStatus;
}

/** Every request carries the tenant; a subscription of another tenant is "not found". */
export interface TenantScoped {
  user_id: string;
}

export interface CreateSubscriptionRequest extends TenantScoped {
  url: string;
  events: EventFilter[];
  app_id?: number | null;
  description?: string | null;
}

export interface SubscriptionRef extends TenantScoped {
  subscription_id: string;
}

export interface UpdateSubscriptionRequest extends SubscriptionRef {
  url?: string;
  events?: EventFilter[];
  app_id?: number | null;
  description?: string | null;
  /** true re-enables a disabled subscription (its failure streak starts over); false disables it. */
  enabled?: boolean;
}

export interface ListAttemptsRequest extends SubscriptionRef {
  limit?: number;
}

export interface ListDeliveriesRequest extends SubscriptionRef {
  limit?: number;
  status?: DeliveryStatus;
}

/** A page of deliveries, newest first, after the delivery `cursor` names (a delivery id). */
export interface DeliveryPageRequest extends ListDeliveriesRequest {
  cursor?: string;
}

/** Per delivery of a page, its latest attempts at most (a delivery resent many times has more). */
export const DELIVERY_PAGE_ATTEMPTS = 20;

export interface DeliveryWithAttempts extends DeliveryView {
  /** Its latest attempts (DELIVERY_PAGE_ATTEMPTS at most), oldest first. */
  attempt_log: AttemptView[];
}

export interface DeliveryPage {
  data: DeliveryWithAttempts[];
  /** The id of the page's last delivery when more follow; null on the last page. */
  next_cursor: string | null;
}

export interface ResendRequest extends SubscriptionRef {
  delivery_id: string;
}
