import { minutesOf } from './campaign-definition';

/**
 * Quiet hours on each recipient's local clock (docs/campaigns.md#the-definition): the api's runner
 * holds a recipient inside them until they end; the gateway's estimate counts who they hold.
 */

/** The local time at `at` in `zone`, as minutes after midnight. */
export function localMinutes(at: Date, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return part('hour') * 60 + part('minute');
}

/** Whether a local time falls in quiet hours from `start` to `end` (a window may wrap midnight). */
export function inQuietWindow(minutes: number, start: number, end: number): boolean {
  return start < end ? minutes >= start && minutes < end : minutes >= start || minutes < end;
}

/**
 * When quiet hours end for a recipient in `zone` who is inside them at `at`; null when it is not
 * inside them (it may be sent now). The end is found on the local clock, so a change of offset
 * (summer time) in between is followed.
 */
export function quietHoursEnd(at: Date, zone: string, quiet: { start: string; end: string }): Date | null {
  const start = minutesOf(quiet.start)!;
  const end = minutesOf(quiet.end)!;
  const now = localMinutes(at, zone);
  if (!inQuietWindow(now, start, end)) return null;
  const minuteStart = Math.floor(at.getTime() / 60_000) * 60_000;
  let candidate = new Date(minuteStart + ((end - now + 1440) % 1440 || 1440) * 60_000);
  // An offset change on the way moves the local clock: correct by what it shows at the candidate.
  const drift = ((end - localMinutes(candidate, zone) + 720 + 1440) % 1440) - 720;
  if (drift !== 0) candidate = new Date(candidate.getTime() + drift * 60_000);
  return candidate;
}
