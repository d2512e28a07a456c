import { CountryCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js';

/** A phone as sends take it: international digits, no `+`, 8 to 15 of them, not starting with 0. */
const INTERNATIONAL_DIGITS = /^[1-9][0-9]{7,14}$/;
/** What a written phone number may hold: digits, `+`, spaces, brackets, dots and dashes. */
const WRITTEN = /^\+?[0-9 ().\-\u00a0]{6,32}$/;

export const PHONE_MESSAGE =
  "must be a phone number: international (+7 999 000-05-00, or the digits 79990000500), or national with the account's default region";

/** Whether `region` is a region phone numbers can be read in (ISO 3166 alpha-2, upper case). */
export const isPhoneRegion = (region: unknown): region is CountryCode =>
  typeof region === 'string' && /^[A-Z]{2}$/.test(region) && isSupportedCountry(region);

/**
 * A phone number as people write it (`+7 999 000-05-00`, `(555) 123-4567`, `00 44 20 7946 0958`)
 * as the international digits sends and consent take, or null when it is none. Digits alone are
 * international already, as they always were; a number without `+` or `00` and with other
 * characters is national, read in the account's default region (none: refused, as it cannot be
 * told apart). Only the length is checked against the numbering plan (a possible number), not
 * whether the number is assigned.
 */
export function phoneDigits(written: string, region?: string | null): string | null {
  const text = written.trim();
  if (INTERNATIONAL_DIGITS.test(text)) return text;
  if (!WRITTEN.test(text)) return null;
  const compact = text.replace(/[\s\u00a0]/g, '');
  const international = compact.startsWith('+') || compact.startsWith('00');
  if (!international && !isPhoneRegion(region)) return null;
  const parsed = international
    ? parsePhoneNumberFromString(compact.startsWith('00') ? `+${compact.slice(2)}` : compact)
    : parsePhoneNumberFromString(text, region as CountryCode);
  if (!parsed?.isPossible() || parsed.ext) return null;
  const digits = parsed.number.slice(1);
  return INTERNATIONAL_DIGITS.test(digits) ? digits : null;
}
