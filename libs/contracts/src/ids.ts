import { v7 as uuidv7 } from 'uuid';

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
