import { PHONE_MESSAGE, phoneDigits } from './phone-numbers';

/**
 * One kind of address a channel reaches a person by (a WhatsApp phone, a Telegram chat id, ...).
 * A contact keeps its addresses as (channel, kind, value) rows; consent is keyed per address.
 */
export interface AddressKind {
  /** The kind's name, as stored and shown (`phone`, `user_id`, `username`, `chat_id`). */
  readonly kind: string;
  /** What a refused value is told (completes "<field> ..."). */
  readonly message: string;
  /**
   * The stored form of a written value, or null when it is not an address of this kind. A phone
   * without its country code is read in `defaultRegion` (the account's).
   */
  canonical(value: string, ctx?: { defaultRegion?: string | null }): string | null;
  /** The value as logs and answers show it: enough to recognise, not enough to reach. */
  mask(value: string): string;
}

/** The value with all but its first `head` and last `tail` characters hidden (short ones wholly). */
export function maskMiddle(value: string, head: number, tail: number): string {
  if (value.length <= head + tail) return '*'.repeat(value.length);
  return `${value.slice(0, head)}${'*'.repeat(value.length - head - tail)}${value.slice(-tail)}`;
}

const CHAT_ID = /^-?[1-9][0-9]{0,19}$/;
/**
 * Meta's business-scoped user id: the user's ISO 3166 country code, a period and up to 128 letters
 * and digits (`US.13491208655302741918`); a parent one, shared by linked portfolios, has `ENT.`
 * after the country (`US.ENT.11815799212886844830`). Stored exactly as Meta sends it.
 */
const WHATSAPP_USER_ID = /^[A-Z]{2}\.(ENT\.)?[A-Za-z0-9]{1,128}$/;
/** Whether a WhatsApp recipient is a business-scoped user id (sent as `recipient`), not a phone. */
export const isWhatsAppUserId = (value: string): boolean => WHATSAPP_USER_ID.test(value);
/**
 * A WhatsApp username: 3 to 35 letters, digits, periods and underscores with at least one letter,
 * no period first, last or twice in a row; compared without regard to case, so stored in lower case.
 */
const WHATSAPP_USERNAME = /^(?=.*[a-z])(?!www)(?!\.)(?!.*\.\.)(?!.*\.$)[a-z0-9._]{3,35}$/;
/** A Telegram public username: a letter, then 4 to 31 letters, digits or underscores, written with `@`. */
const TELEGRAM_USERNAME = /^@[A-Za-z][A-Za-z0-9_]{4,31}$/;

const maskId = (value: string): string => maskMiddle(value, 3, 2);

export const WHATSAPP_PHONE: AddressKind = {
  kind: 'phone',
  message: PHONE_MESSAGE,
  canonical: (value, ctx) => phoneDigits(value, ctx?.defaultRegion),
  mask: (value) => maskMiddle(value, 4, 2),
};

export const WHATSAPP_ADDRESSES: readonly AddressKind[] = [
  WHATSAPP_PHONE,
  {
    kind: 'user_id',
    message:
      'must be a WhatsApp business-scoped user id (a country code, a period and letters or digits: US.13491208655302741918)',
    canonical: (value) => (WHATSAPP_USER_ID.test(value.trim()) ? value.trim() : null),
    mask: (value) => maskMiddle(value, 5, 2),
  },
  {
    kind: 'username',
    message: 'must be a WhatsApp username (3 to 35 letters, digits, periods and underscores, with a letter)',
    canonical: (value) => {
      const name = value.trim().replace(/^@/, '').toLowerCase();
      return WHATSAPP_USERNAME.test(name) ? name : null;
    },
    mask: maskId,
  },
];

export const TELEGRAM_ADDRESSES: readonly AddressKind[] = [
  {
    kind: 'chat_id',
    message: 'must be a Telegram chat id (an integer)',
    canonical: (value) => (CHAT_ID.test(value) ? value : null),
    mask: maskId,
  },
  {
    kind: 'username',
    message: 'must be a Telegram public username (@name)',
    canonical: (value) => (TELEGRAM_USERNAME.test(value) ? value : null),
    mask: maskId,
  },
];

export const MAX_ADDRESSES: readonly AddressKind[] = [
  {
    kind: 'user_id',
    message: 'must be a MAX user id (an integer)',
    canonical: (value) => (CHAT_ID.test(value) ? value : null),
    mask: maskId,
  },
];

/** An address as a contact keeps it. */
export interface ContactAddress {
  channel: string;
  kind: string;
  value: string;
}

/** A written address read by the first of `kinds` that takes it, or null when none does. */
export function readAddress(
  kinds: readonly AddressKind[],
  written: string,
  defaultRegion?: string | null,
): { kind: string; value: string } | null {
  for (const k of kinds) {
    const value = k.canonical(written, { defaultRegion });
    if (value !== null) return { kind: k.kind, value };
  }
  return null;
}
