import {
  ConsentChange,
  ConsentPurpose,
  ConsentSource,
  ConsentState,
  MessageCategory,
  priorityOf,
  unixSeconds,
} from '@app/contracts';
import { ProblemError, UnprocessableProblem } from '@app/server';

/** A recorded state of one purpose of one address (no record: `unknown`). */
export interface RecordedConsent {
  purpose: ConsentPurpose;
  state: Exclude<ConsentState, 'unknown'>;
  source: ConsentSource;
  since: Date;
}

export type ConsentDecision = { change: boolean; refused?: string };

const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Whether a requested change is made (docs/consent.md#who-may-change-what):
 * - the same state again changes nothing;
 * - an import never lifts an opt-out (a later import cannot silently re-enable marketing to a
 *   person who opted out): refused;
 * - the consent API lifts an opt-out the person or the channel gave only with evidence;
 * - a channel's "reachable again" (the person wrote to the bot) lifts only an opt-out a channel
 *   signal set, never one the person or the business asked for.
 */
export function decide(current: RecordedConsent | null, change: ConsentChange): ConsentDecision {
  const state = current?.state ?? 'unknown';
  if (state === change.state) return { change: false };
  if (current?.state === 'opted_out') {
    if (change.source === 'import') {
      return {
        change: false,
        refused: `opted out of ${current.purpose} on ${day(current.since)} (${current.source}); an import cannot change that`,
      };
    }
    if (change.source === 'channel' && current.source !== 'channel') return { change: false };
    if (change.source === 'api' && current.source !== 'api' && !change.evidence?.trim()) {
      return {
        change: false,
        refused: `opted out of ${current.purpose} on ${day(current.since)} (${current.source}); evidence of the person's new consent is required`,
      };
    }
  }
  return { change: true };
}

/** What a send of this category needs consent for: marketing templates need `marketing`, everything `all`. */
export function purposesOf(category: MessageCategory): ConsentPurpose[] {
  return priorityOf(category) === 'marketing' ? ['all', 'marketing'] : ['all'];
}

/**
 * Why consent forbids a send of `category` to an address with these records, or null when it may
 * go: an opt-out of `all` or (for marketing) of `marketing`, or, when the business requires it,
 * marketing without an explicit opt-in.
 */
export function consentRefusal(
  channel: string,
  category: MessageCategory,
  records: RecordedConsent[],
  marketingRequiresOptIn: boolean,
): ProblemError | null {
  const purposes = purposesOf(category);
  for (const purpose of purposes) {
    const r = records.find((x) => x.purpose === purpose);
    if (r?.state === 'opted_out') return optedOut(channel, r);
  }
  if (marketingRequiresOptIn && purposes.includes('marketing') && !records.some((r) => r.state === 'opted_in')) {
    return new UnprocessableProblem(
      'consent-required',
      'Consent required',
      `This business sends marketing on ${channel} only to recipients who opted in; this one has not.`,
      { channel, purpose: 'marketing' },
    );
  }
  return null;
}

function optedOut(channel: string, r: RecordedConsent): ProblemError {
  const what = r.purpose === 'all' ? 'all messages' : 'marketing messages';
  const why = r.source === 'channel' && r.purpose === 'all' ? ' (unreachable: the channel refused them)' : '';
  return new UnprocessableProblem(
    'recipient-opted-out',
    'Recipient opted out',
    `The recipient opted out of ${what} on ${channel} since ${r.since.toISOString()}${why}; nothing was charged.`,
    { channel, purpose: r.purpose, since: unixSeconds(r.since), source: r.source },
  );
}
