import { createHash } from 'node:crypto';
import { ValidationProblem } from './problem';

/** 1 to 255 printable ASCII characters. */
const KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;

/** JSON with object keys sorted at every level: equal bodies hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What makes two requests "the same" for an Idempotency-Key: method, path and canonical body. */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()}\n${path}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
}

/** Validates an `Idempotency-Key` header value (400 with the field when bad); undefined when absent. */
export function parseIdempotencyKey(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (Array.isArray(raw) && raw.length > 1) {
    throw new ValidationProblem([{ field: 'Idempotency-Key', message: 'send the Idempotency-Key header once' }]);
  }
  if (!KEY_PATTERN.test(value)) {
    throw new ValidationProblem([
      { field: 'Idempotency-Key', message: 'Idempotency-Key must be 1 to 255 printable ASCII characters' },
    ]);
  }
  return value;
}
