/**
 * A `Retry-After` header as milliseconds to wait: seconds (fractions allowed) or an HTTP date;
 * undefined when absent or unreadable; `now` (unix ms) is the caller's clock. Channels and webhook receivers send it alike.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
