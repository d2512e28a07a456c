import { EventEnvelope, STATUS_OF_EVENT, statusRank } from '@app/contracts';
import type { ReceivedRequest } from '../../../apps/webhooks/test/support/receiver';

/** A status event's rank in its message's lifecycle; 0 for any other event. */
function rankOf(e: EventEnvelope): number {
  const status = STATUS_OF_EVENT[e.type];
  return status ? statusRank(status) : 0;
}

function messageOf(e: EventEnvelope): string | undefined {
  return (e.data as { message_id?: string }).message_id;
}

/**
 * What the subscriber got against the promise of docs/webhooks.md: every event reaches it, except
 * a status that a status of its message it was sent ranks at or above (`passedBy`, not a loss);
 * and no status reaches it below one of its message it already received (`backwards`).
 */
export function statusFanOut(
  expected: EventEnvelope[],
  received: ReceivedRequest[],
): { notDelivered: string[]; passedBy: number; backwards: string[] } {
  const delivered = new Set(received.map((r) => r.headers['webhook-id']));
  const sentRank = new Map<string, number>();
  for (const e of expected) {
    const message = messageOf(e);
    if (message && delivered.has(e.id)) sentRank.set(message, Math.max(sentRank.get(message) ?? 0, rankOf(e)));
  }
  const missing = expected.filter((e) => !delivered.has(e.id));
  const passed = (e: EventEnvelope) => rankOf(e) > 0 && rankOf(e) <= (sentRank.get(messageOf(e) ?? '') ?? 0);
  const byId = new Map(expected.map((e) => [e.id, e]));
  const lastRank = new Map<string, number>();
  const seen = new Set<string>();
  const backwards: string[] = [];
  for (const r of received) {
    const e = byId.get(r.headers['webhook-id']);
    // A repeat (at least once) is counted apart; an event without a status has no rank.
    if (!e || seen.has(e.id) || !rankOf(e)) continue;
    seen.add(e.id);
    const message = messageOf(e) ?? '';
    if (rankOf(e) <= (lastRank.get(message) ?? 0)) backwards.push(`${e.type} ${e.id} of ${message}`);
    else lastRank.set(message, rankOf(e));
  }
  return {
    notDelivered: missing.filter((e) => !passed(e)).map((e) => `${e.type} ${e.id}`),
    passedBy: missing.filter(passed).length,
    backwards,
  };
}
