import { AppSignal, callbackEventId, fromDailyCap, fromMetaTier, signalChanges } from '@app/contracts';

/** The change fields of a WhatsApp Business Account webhook that speak of the account or its number. */
export const ACCOUNT_SIGNAL_FIELDS = [
  'phone_number_quality_update',
  'account_update',
  'business_capability_update',
] as const;
export type AccountSignalField = (typeof ACCOUNT_SIGNAL_FIELDS)[number];

export function isAccountSignalField(field: unknown): field is AccountSignalField {
  return (ACCOUNT_SIGNAL_FIELDS as readonly unknown[]).includes(field);
}

type Fields = Omit<AppSignal, 'id' | 'channel' | 'source' | 'phone_number_id' | 'waba_id' | 'cause' | 'observed_at'>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Account events that take the number off the platform, and those that bring it back. */
const STOPS = new Set(['ACCOUNT_DELETED', 'ACCOUNT_OFFBOARDED', 'PARTNER_REMOVED', 'PARTNER_APP_UNINSTALLED']);
const RESUMES = new Set(['ACCOUNT_RECONNECTED', 'PARTNER_APP_INSTALLED', 'PARTNER_ADDED']);

/** Restrictions that stop the business from starting conversations (templates), marketing among them. */
const MESSAGING_RESTRICTIONS = new Set([
  'RESTRICTED_BIZ_INITIATED_MESSAGING',
  'RESTRICTED_CUSTOMER_INITIATED_MESSAGING',
]);

/** The tier a quality or capability callback names: the number's current limit, else the business's. */
function limitOf(v: Record<string, unknown>): Fields {
  const tier =
    fromMetaTier(v.current_limit) ??
    fromMetaTier(v.max_daily_conversations_per_business) ??
    fromDailyCap(v.max_daily_conversation_per_phone) ??
    fromDailyCap(v.max_daily_conversations_per_business);
  return tier ?? {};
}

/** `phone_number_quality_update`: FLAGGED is a low (RED) quality; UNFLAGGED lifts it (the exact rating is asked for). */
function qualityUpdate(v: Record<string, unknown>): Fields {
  const out: Fields = limitOf(v);
  if (v.event === 'FLAGGED') out.phone_quality = 'RED';
  if (v.event === 'UNFLAGGED') out.refresh = true;
  return out;
}

/** Seconds of an ISO time or Unix seconds; null when neither. */
function secondsOf(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v) && v > 0) return Math.floor(v);
  if (typeof v === 'string' && v) {
    const ms = /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(v);
    return Number.isFinite(ms) && ms > 0 ? Math.floor(ms / 1000) : null;
  }
  return null;
}

/** `account_update`: a ban, a reinstatement, a messaging restriction (or its end), an offboarding. */
function accountUpdate(v: Record<string, unknown>): Fields {
  const event = typeof v.event === 'string' ? v.event : '';
  if (event === 'DISABLED_UPDATE') {
    const state = isObject(v.ban_info) ? v.ban_info.waba_ban_state : undefined;
    if (state === 'DISABLE') return { status: 'BLOCKED' };
    if (state === 'REINSTATE') return { status: 'ACTIVE' };
    return {}; // SCHEDULE_FOR_DISABLE: a warning; the account still works
  }
  if (event === 'ACCOUNT_RESTRICTION') {
    const list = Array.isArray(v.restriction_info)
      ? v.restriction_info
      : isObject(v.restrictions)
        ? [v.restrictions]
        : [];
    const messaging = list.filter((r) => isObject(r) && MESSAGING_RESTRICTIONS.has(r.restriction_type as string));
    if (!messaging.length) return list.length ? {} : { restricted: false, restricted_until: null };
    const ends = messaging.map((r) => secondsOf((r as Record<string, unknown>).expiration));
    // The latest end; any restriction without one lasts until the channel lifts it.
    const until = ends.some((e) => e === null) ? null : Math.max(...(ends as number[]));
    return { restricted: true, restricted_until: until };
  }
  if (STOPS.has(event)) return { is_stopped: true };
  if (RESUMES.has(event)) return { is_stopped: false };
  return {}; // ACCOUNT_VIOLATION and the rest: no change to what the app can do
}

/**
 * One account-level change of a WhatsApp webhook as the platform's app signal, or null when it
 * changes nothing about the app (a violation notice, a restriction of adding numbers, ...).
 * The business account is the entry's id; the api finds its app.
 */
export function accountSignalOf(
  field: AccountSignalField,
  value: Record<string, unknown>,
  wabaId: string,
  entryTime: unknown,
  observedAt: number,
): AppSignal | null {
  const fields =
    field === 'phone_number_quality_update'
      ? qualityUpdate(value)
      : field === 'account_update'
        ? accountUpdate(value)
        : limitOf(value);
  const event = typeof value.event === 'string' ? value.event : field;
  const signal: AppSignal = {
    id: callbackEventId('whatsapp', 'signal', field, wabaId, String(entryTime ?? ''), JSON.stringify(value)),
    channel: 'whatsapp',
    source: 'callback',
    phone_number_id: null,
    waba_id: wabaId,
    cause: event,
    observed_at: secondsOf(entryTime) ?? observedAt,
    ...fields,
  };
  return signalChanges(signal) ? signal : null;
}
