import { callbackEventId } from './ids';
import { WhatsAppConnection } from './whatsapp';

/** An app's messaging tier as the API shows it (the App object's `message_limit`). */
export const APP_MESSAGE_LIMITS = [
  'TIER_50',
  'TIER_250',
  'TIER_2K',
  'TIER_10K',
  'TIER_100K',
  'TIER_NOT_SET',
  'TIER_UNLIMITED',
] as const;
export type AppMessageLimit = (typeof APP_MESSAGE_LIMITS)[number];

export const APP_PHONE_QUALITIES = ['GREEN', 'YELLOW', 'RED', 'UNKNOWN'] as const;
export type AppPhoneQuality = (typeof APP_PHONE_QUALITIES)[number];

/**
 * What the channel says about a business number or account, in the platform's words: one shape
 * for every WhatsApp callback about the account (quality, messaging limit, restriction, ban) and
 * for the periodic pull of the number's state. Only the fields the channel spoke of are present;
 * the api applies those that differ from the app and publishes `app.updated`.
 */
export interface AppSignal {
  /** Derived from what the channel said: the same callback twice is the same signal. */
  id: string;
  channel: 'whatsapp';
  source: 'callback' | 'sync';
  /** Which app(s): the number when known, else every app of the business account. */
  phone_number_id: string | null;
  waba_id: string | null;
  /** The channel's words for what happened (`FLAGGED`, `ACCOUNT_RESTRICTION`, `status RESTRICTED`, ...). */
  cause: string;
  /** Unix seconds at which the channel reported it. */
  observed_at: number;
  message_limit?: AppMessageLimit;
  /**
   * The exact number of unique recipients per 24 hours when the channel's tier is not one of the
   * API's labels (TIER_1K: 1000, shown as the next label); null when the label says it.
   */
  message_cap?: number | null;
  phone_quality?: AppPhoneQuality;
  status?: 'ACTIVE' | 'BLOCKED';
  is_stopped?: boolean;
  /** Business-initiated messaging restricted by the channel (marketing pauses while it lasts). */
  restricted?: boolean;
  /** When the restriction ends (Unix seconds); null: until the channel lifts it. */
  restricted_until?: number | null;
  /** The callback does not say the whole state (UNFLAGGED): the api asks the channel for it at once. */
  refresh?: boolean;
}

/** What applying a signal did. */
export interface ApplySignalReply {
  /** Apps the signal changed (each got one `app.updated`). */
  changed: number[];
}

/** The state of a number on the channel (`GET /{phone_number_id}`), or why it could not be read. */
export type NumberHealth =
  | {
      phone_number_id: string;
      waba_id: string;
      quality_rating: string | null;
      messaging_limit_tier: string | null;
      status: string | null;
    }
  | { phone_number_id: string; waba_id: string; error: string };

export interface NumbersHealthRequest {
  numbers: WhatsAppConnection[];
}
export interface NumbersHealthReply {
  numbers: NumberHealth[];
}

/** At most this many numbers per `whatsapp.numbers.health` request. */
export const NUMBERS_HEALTH_BATCH = 25;

/** Meta's messaging tiers: the API's label and, when the label is coarser, the exact cap. */
const META_TIERS: Record<string, { message_limit: AppMessageLimit; message_cap: number | null }> = {
  TIER_50: { message_limit: 'TIER_50', message_cap: null },
  TIER_250: { message_limit: 'TIER_250', message_cap: null },
  TIER_1K: { message_limit: 'TIER_2K', message_cap: 1_000 },
  TIER_2K: { message_limit: 'TIER_2K', message_cap: null },
  TIER_10K: { message_limit: 'TIER_10K', message_cap: null },
  TIER_100K: { message_limit: 'TIER_100K', message_cap: null },
  TIER_UNLIMITED: { message_limit: 'TIER_UNLIMITED', message_cap: null },
  TIER_NOT_SET: { message_limit: 'TIER_NOT_SET', message_cap: null },
};

/** A Meta tier name (`TIER_1K`, ...) as the app's tier; null for a name the platform does not know. */
export function fromMetaTier(tier: unknown): { message_limit: AppMessageLimit; message_cap: number | null } | null {
  return typeof tier === 'string' && Object.hasOwn(META_TIERS, tier) ? { ...META_TIERS[tier] } : null;
}

/**
 * A daily conversation cap as a number (business_capability_update): the tier whose cap it is,
 * with the exact cap when no label matches; a negative cap or one past 100 000 is unlimited.
 */
export function fromDailyCap(cap: unknown): { message_limit: AppMessageLimit; message_cap: number | null } | null {
  const n = typeof cap === 'string' && /^-?\d+$/.test(cap) ? Number(cap) : cap;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n === 0) return null;
  if (n < 0 || n > 100_000) return { ...META_TIERS.TIER_UNLIMITED };
  const exact = Object.values(META_TIERS).find((t) => t.message_cap === null && TIER_CAP_OF[t.message_limit] === n);
  if (exact) return { ...exact };
  const label = (['TIER_50', 'TIER_250', 'TIER_2K', 'TIER_10K', 'TIER_100K'] as const).find(
    (l) => (TIER_CAP_OF[l] as number) >= n,
  )!;
  return { message_limit: label, message_cap: n };
}

/** Unique recipients of template sends per 24 hours of each label (null: no cap); TIER_NOT_SET sends as TIER_250. */
export const TIER_CAP_OF: Record<AppMessageLimit, number | null> = {
  TIER_50: 50,
  TIER_250: 250,
  TIER_2K: 2_000,
  TIER_10K: 10_000,
  TIER_100K: 100_000,
  TIER_NOT_SET: 250,
  TIER_UNLIMITED: null,
};

/** Meta's quality rating (GREEN, YELLOW, RED; NA or UNKNOWN while assessed). */
export function fromMetaQuality(rating: unknown): AppPhoneQuality | null {
  if (rating === 'GREEN' || rating === 'YELLOW' || rating === 'RED' || rating === 'UNKNOWN') return rating;
  return rating === 'NA' ? 'UNKNOWN' : null;
}

type StateFields = Pick<AppSignal, 'status' | 'is_stopped' | 'restricted' | 'restricted_until'>;

/**
 * The number's `status` on the Graph API as the app's state. CONNECTED is the whole truth of a
 * working number (active, running, unrestricted); statuses about registration or throughput say
 * nothing about the app.
 */
export function fromMetaNumberStatus(status: unknown): StateFields | null {
  switch (status) {
    case 'CONNECTED':
      return { status: 'ACTIVE', is_stopped: false, restricted: false, restricted_until: null };
    case 'RESTRICTED':
      return { restricted: true, restricted_until: null };
    case 'BANNED':
      return { status: 'BLOCKED' };
    case 'DELETED':
    case 'DISCONNECTED':
    case 'MIGRATED':
      return { is_stopped: true };
    default:
      return null;
  }
}

/** The signal a pull of one number amounts to (null when it could not be read or said nothing). */
export function signalOfNumberHealth(h: NumberHealth, now: number): AppSignal | null {
  if ('error' in h) return null;
  const signal: AppSignal = {
    id: callbackEventId('whatsapp', 'sync', h.phone_number_id, h.quality_rating, h.messaging_limit_tier, h.status),
    channel: 'whatsapp',
    source: 'sync',
    phone_number_id: h.phone_number_id,
    waba_id: h.waba_id,
    cause: `sync ${[h.status, h.quality_rating, h.messaging_limit_tier].filter(Boolean).join(' ')}`,
    observed_at: now,
    ...(fromMetaTier(h.messaging_limit_tier) ?? {}),
    ...(fromMetaNumberStatus(h.status) ?? {}),
  };
  const quality = fromMetaQuality(h.quality_rating);
  if (quality) signal.phone_quality = quality;
  return signalChanges(signal) ? signal : null;
}

/** Whether a signal says anything about the app (a field to apply, or a state to ask for). */
export function signalChanges(s: AppSignal): boolean {
  return (
    s.message_limit !== undefined ||
    s.phone_quality !== undefined ||
    s.status !== undefined ||
    s.is_stopped !== undefined ||
    s.restricted !== undefined ||
    s.refresh === true
  );
}

const isId = (v: unknown): v is string => typeof v === 'string' && /^[0-9]{1,64}$/.test(v);

/**
 * A signal as received over request/reply, kept to the fields and values the contract allows;
 * null when it names no number or business account, or says nothing.
 */
export function parseAppSignal(raw: unknown): AppSignal | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as Record<string, unknown>;
  const phoneNumberId = isId(r.phone_number_id) ? r.phone_number_id : null;
  const wabaId = isId(r.waba_id) ? r.waba_id : null;
  if (!phoneNumberId && !wabaId) return null;
  if (typeof r.id !== 'string' || !r.id || r.id.length > 200) return null;
  const s: AppSignal = {
    id: r.id,
    channel: 'whatsapp',
    source: r.source === 'sync' ? 'sync' : 'callback',
    phone_number_id: phoneNumberId,
    waba_id: wabaId,
    cause: typeof r.cause === 'string' ? r.cause.slice(0, 200) : 'unknown',
    observed_at: typeof r.observed_at === 'number' && Number.isFinite(r.observed_at) ? r.observed_at : 0,
  };
  if ((APP_MESSAGE_LIMITS as readonly unknown[]).includes(r.message_limit)) {
    s.message_limit = r.message_limit as AppMessageLimit;
    s.message_cap =
      typeof r.message_cap === 'number' && Number.isSafeInteger(r.message_cap) && r.message_cap > 0
        ? r.message_cap
        : null;
  }
  if ((APP_PHONE_QUALITIES as readonly unknown[]).includes(r.phone_quality)) {
    s.phone_quality = r.phone_quality as AppPhoneQuality;
  }
  if (r.status === 'ACTIVE' || r.status === 'BLOCKED') s.status = r.status;
  if (typeof r.is_stopped === 'boolean') s.is_stopped = r.is_stopped;
  if (typeof r.restricted === 'boolean') {
    s.restricted = r.restricted;
    s.restricted_until =
      r.restricted && typeof r.restricted_until === 'number' && Number.isFinite(r.restricted_until)
        ? r.restricted_until
        : null;
  }
  if (r.refresh === true) s.refresh = true;
  return signalChanges(s) ? s : null;
}
