/** What PostgreSQL's text and jsonb cannot hold: the NUL character. */
// eslint-disable-next-line no-control-regex
const NUL = /\u0000/g;

/**
 * `value` with every NUL character in its strings (at any depth, keys included) replaced by
 * U+FFFD, so that whatever a channel or a hostile webhook put in an event can be stored: one such
 * value in a batched statement would otherwise fail the statement for every row of the batch.
 * Values without a NUL come back as they are (the same objects).
 */
export function storableText<T>(value: T): T {
  if (typeof value === 'string') return (value.includes('\u0000') ? value.replace(NUL, '\ufffd') : value) as T;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v: unknown) => {
      const s = storableText(v);
      changed ||= s !== v;
      return s;
    });
    return (changed ? out : value) as T;
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const key = storableText(k);
      const s = storableText(v);
      changed ||= s !== v || key !== k;
      out[key] = s;
    }
    return (changed ? out : value) as T;
  }
  return value;
}
