import { createHash } from 'node:crypto';
import { canonicalJson } from '@app/server';

/** Largest body a course platform may post (bigger: 413). */
export const COURSE_BODY_LIMIT_BYTES = 64 * 1024;

/** Deepest nesting a form key (`a[b][c]`) or a dotted path may have. */
const MAX_DEPTH = 16;

/** Names that would reach an object's prototype: never used as keys. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

/** The longest event id taken as given; longer ones are hashed like a body without an id. */
const MAX_EVENT_ID_LENGTH = 200;

export type CourseBody = Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `user[phone]`, `user.phone` and `user[address][city]` as their path segments. */
export function keySegments(key: string): string[] {
  const segments: string[] = [];
  for (const part of key.split('.')) {
    const m = /^([^[\]]*)((?:\[[^[\]]*\])*)$/.exec(part);
    if (!m) {
      segments.push(part);
      continue;
    }
    if (m[1] !== '' || !m[2]) segments.push(m[1]);
    for (const inner of m[2].matchAll(/\[([^[\]]*)\]/g)) segments.push(inner[1]);
  }
  return segments;
}

/**
 * A form body (`application/x-www-form-urlencoded`) as nested objects: `user[phone]=1` and
 * `user.phone=1` both give `{ user: { phone: "1" } }`. A key given twice keeps its last value; an
 * empty segment (`tags[]`) collects the values in an array. A key that would both be a value and
 * an object keeps the object.
 */
export function parseFormBody(text: string): CourseBody {
  const out: CourseBody = Object.create(null) as CourseBody;
  for (const [key, value] of new URLSearchParams(text)) {
    const path = keySegments(key);
    if (!path.length || path.length > MAX_DEPTH || path.some((s) => FORBIDDEN_KEYS.has(s))) continue;
    let node: Record<string, unknown> = out;
    for (let i = 0; i < path.length - 1; i++) {
      const seg = path[i];
      const next = node[seg];
      if (!isObject(next)) node[seg] = Object.create(null) as Record<string, unknown>;
      node = node[seg] as Record<string, unknown>;
    }
    const last = path[path.length - 1];
    if (last === '') {
      // `tags[]=a&tags[]=b`: the parent holds a list under the empty key, turned into an array below.
      const list = (node[''] as unknown[] | undefined) ?? [];
      list.push(value);
      node[''] = list;
    } else if (!isObject(node[last])) {
      node[last] = value;
    }
  }
  return plain(out) as CourseBody;
}

/** Null-prototype objects as plain ones, `{"": [..]}` lists as arrays. */
function plain(value: unknown): unknown {
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === '' && Array.isArray(value[''])) return value[''];
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = plain(value[k]);
  return out;
}

/**
 * The value at a dotted path (`user.phone`, `items.0.title`) as text: strings as they are, numbers
 * and booleans printed; undefined when the path is missing, empty, or names an object or list.
 */
export function readPath(body: unknown, path: string): string | undefined {
  const segments = path.split('.');
  if (segments.length > MAX_DEPTH) return undefined;
  let node: unknown = body;
  for (const seg of segments) {
    if (FORBIDDEN_KEYS.has(seg)) return undefined;
    if (Array.isArray(node) && /^\d+$/.test(seg)) node = node[Number(seg)];
    else if (isObject(node) && Object.hasOwn(node, seg)) node = node[seg];
    else return undefined;
  }
  if (typeof node === 'string') return node.trim() === '' ? undefined : node;
  if (typeof node === 'number' && Number.isFinite(node)) return String(node);
  if (typeof node === 'boolean') return String(node);
  return undefined;
}

/** The event's type: its `type` field, else its `event` field; null when it has neither. */
export function eventTypeOf(body: CourseBody): string | null {
  for (const field of ['type', 'event']) {
    const v = body[field];
    if ((typeof v === 'string' && v.trim()) || typeof v === 'number') return String(v).trim().slice(0, 200);
  }
  return null;
}

/**
 * Who the event is: its `id` or `event_id` field as given, else `sha256:` and the SHA-256 of its
 * canonical JSON (keys sorted at every level), so the same callback sent twice is one event however
 * its keys are ordered.
 */
export function eventKeyOf(body: CourseBody): string {
  for (const field of ['id', 'event_id']) {
    const v = body[field];
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    if (typeof v === 'string' && v.trim() && v.length <= MAX_EVENT_ID_LENGTH) return v.trim();
  }
  return `sha256:${createHash('sha256').update(canonicalJson(body)).digest('hex')}`;
}

/**
 * A phone number as WhatsApp takes it: `+7 (999) 000-11-22` becomes `79990001122`. Anything that
 * is not written like a phone number is left as it is (and refused by the send's own check).
 */
export function normalizePhone(value: string): string {
  return /^\+?[\d\s().-]+$/.test(value) ? value.replace(/\D/g, '') : value;
}
