import { createHash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { MessageStatus } from './events';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID in its usual text form (any version, either case): what our ids look like. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** Message ids are UUID v7 strings: unique and ordered by time. */
export function newMessageId(): string {
  return uuidv7();
}

export function newEventId(): string {
  return `evt_${uuidv7().replace(/-/g, '')}`;
}

export function unixSeconds(date: Date = new Date()): number {
  return Math.floor(date.getTime() / 1000);
}

/**
 * The one id of "message X reached status Y", whoever reports it (the queue after the channel's
 * answer, the gateway from the channel's callback): the EVENTS stream stores it once, so a
 * subscriber hears of each step of a message once.
 */
export function messageStatusEventId(messageId: string, status: MessageStatus): string {
  return `evt_${createHash('sha256').update(`${messageId}:${status.toLowerCase()}`).digest('hex').slice(0, 32)}`;
}

/**
 * The id of an event a channel callback reports, from what identifies it at the channel: the same
 * callback delivered twice becomes the same event, which the EVENTS stream stores once.
 */
export function callbackEventId(...parts: (string | number | null | undefined)[]): string {
  return `evt_${createHash('sha256')
    .update(parts.map((p) => String(p ?? '')).join('|'))
    .digest('hex')
    .slice(0, 32)}`;
}
