/** Unix seconds (or an ISO string) as the locale's date and time; a dash when absent. */
export function dateTime(value: number | string | null | undefined, locale: string): string {
  if (value === null || value === undefined || value === '') return '—';
  const date = typeof value === 'number' ? new Date(value * 1000) : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

export function num(value: number | string | null | undefined, locale: string, digits = 0): string {
  if (value === null || value === undefined || value === '') return '—';
  const n = Number(value);
  if (!Number.isFinite(n)) return String(value);
  return new Intl.NumberFormat(locale, {
    maximumFractionDigits: Math.max(digits, 4),
    minimumFractionDigits: digits,
  }).format(n);
}

export function percent(part: number, whole: number, locale: string): string {
  if (!whole) return '—';
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(part / whole);
}

/** Unix seconds of a `datetime-local` input's value (local time), or undefined when empty. */
export function unixOf(local: string): number | undefined {
  if (!local) return undefined;
  const ms = new Date(local).getTime();
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

/** Any value as display text (objects as compact JSON): always rendered as a text node. */
export function text(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
