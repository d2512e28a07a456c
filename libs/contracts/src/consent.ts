import { GatewaySendChannel, isPrimaryKind } from './channels';

/**
 * Consent of one business (the api user) to message one channel address (docs/consent.md), kept
 * by the api, which owns the send path that enforces it. The gateway's contacts read and write it
 * over request/reply with these shapes.
 */
export const CONSENT_RPC = {
  /** Records changes (the consent API, an import's column): `ApplyConsentRequest`. */
  apply: 'consent.apply',
  /** The current state of each purpose of some addresses. */
  read: 'consent.read',
  /** The recorded changes of some addresses, newest first. */
  history: 'consent.history',
  settings: 'consent.settings.get',
  updateSettings: 'consent.settings.update',
} as const;

/** `marketing`: MARKETING and MARKETING_LITE templates; `all`: any message the business starts. */
export const CONSENT_PURPOSES = ['marketing', 'all'] as const;
export type ConsentPurpose = (typeof CONSENT_PURPOSES)[number];

/** `unknown` is no record at all: sends go out as they always did (unless the account requires opted_in for marketing). */
export const CONSENT_STATES = ['opted_in', 'opted_out', 'unknown'] as const;
export type ConsentState = (typeof CONSENT_STATES)[number];

/** Where a change came from: the consent API, an import's column, an inbound keyword, a channel's signal. */
export const CONSENT_SOURCES = ['api', 'import', 'keyword', 'channel'] as const;
export type ConsentSource = (typeof CONSENT_SOURCES)[number];

/** A channel address consent is kept for. */
export interface ConsentAddress {
  channel: GatewaySendChannel;
  address: string;
  /**
   * The address's kind when it is not the channel's primary one (a WhatsApp `user_id` or
   * `username`): consent keys it apart from a primary address spelled the same.
   */
  kind?: string;
}

/** One requested change of one purpose of one address. */
export interface ConsentChange extends ConsentAddress {
  purpose: ConsentPurpose;
  state: ConsentState;
  source: ConsentSource;
  /** What proves it, in the business's or the channel's words (a form id, the keyword, the error code). */
  evidence?: string | null;
}

export interface ApplyConsentRequest {
  user_id: string;
  changes: ConsentChange[];
}

/**
 * What became of each change, in order: `changed` false when the state was already that; `refused`
 * says why a change was not made (an import may not opt back in a person who opted out).
 */
export interface ApplyConsentResult {
  outcomes: { changed: boolean; refused?: string }[];
}

/** The state of one purpose of one address; `since` is null for `unknown`. */
export interface ConsentStateView extends ConsentAddress {
  purpose: ConsentPurpose;
  state: ConsentState;
  source: ConsentSource | null;
  /** Unix seconds. */
  since: number | null;
}

export interface ReadConsentRequest {
  user_id: string;
  addresses: ConsentAddress[];
}

export interface ReadConsentResult {
  /** Both purposes of every address asked for, in order. */
  states: ConsentStateView[];
}

/** One recorded change: what was asked, by whom, when, with what evidence. */
export interface ConsentHistoryEntry {
  channel: GatewaySendChannel;
  purpose: ConsentPurpose;
  state: ConsentState;
  source: ConsentSource;
  evidence: string | null;
  /** Unix seconds. */
  at: number;
}

export interface ConsentHistoryRequest {
  user_id: string;
  addresses: ConsentAddress[];
  limit: number;
}

export interface ConsentHistoryResult {
  entries: ConsentHistoryEntry[];
}

/** A business's consent settings (docs/consent.md#settings). */
export interface ConsentSettings {
  /** Marketing needs an explicit opted_in; `unknown` is refused like opted_out. */
  marketing_requires_opt_in: boolean;
  /** Inbound texts that opt out of marketing, compared by `keywordOf`. */
  opt_out_keywords: string[];
  /** Inbound texts that opt back in. */
  opt_in_keywords: string[];
}

export interface GetConsentSettingsRequest {
  user_id: string;
}

export interface UpdateConsentSettingsRequest {
  user_id: string;
  settings: Partial<ConsentSettings>;
}

export const DEFAULT_OPT_OUT_KEYWORDS = [
  'STOP',
  'UNSUBSCRIBE',
  'END',
  'QUIT',
  'CANCEL',
  'OPTOUT',
  'СТОП',
  'ОТПИСАТЬСЯ',
] as const;
export const DEFAULT_OPT_IN_KEYWORDS = ['START', 'SUBSCRIBE', 'СТАРТ', 'ПОДПИСАТЬСЯ'] as const;

/** Longest text compared with the keywords: a keyword message is one word. */
const KEYWORD_TEXT_MAX = 64;

/**
 * What an inbound text says as a keyword: its letters and digits only, in capitals ("Stop!",
 * " s t o p ", "opt-out" and "Стоп." all count), or null for text too long to be one word.
 */
export function keywordOf(text: string | null | undefined): string | null {
  if (typeof text !== 'string' || text.length > KEYWORD_TEXT_MAX) return null;
  const word = text.replace(/[^\p{L}\p{N}]/gu, '').toLocaleUpperCase('en-US');
  return word || null;
}

/**
 * The one spelling of an address: a WhatsApp phone as digits (no `+`), a chat or user id as given,
 * trimmed; an address of a named kind other than the channel's primary (a WhatsApp user id or
 * username) as given, trimmed. Consent is keyed by it, so `+7999...` and `7999...` are one person.
 */
export function canonicalAddress(channel: string, address: string, kind?: string): string {
  const trimmed = address.trim();
  return channel === 'whatsapp' && isPrimaryKind(channel, kind) ? trimmed.replace(/\D/g, '') : trimmed;
}

/** `contact.opted_out` / `contact.opted_in` data. */
export interface ContactConsentEventData {
  channel: GatewaySendChannel;
  address: string;
  purpose: ConsentPurpose;
  state: ConsentState;
  source: ConsentSource;
  evidence: string | null;
  /** Unix seconds. */
  since: number;
}
