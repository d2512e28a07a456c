/** A status event's message (within its tenant) and the rank of the status it reports. */
export interface StatusStep {
  userId: string;
  messageId: string;
  rank: number;
}

/** One message's key: its tenant and id. */
export function messageKeyOf(step: StatusStep): string {
  return `${step.userId}|${step.messageId}`;
}

/** What applying a batch of status steps forward only decides. */
export interface ForwardOnly {
  /** Per step of the batch: whether it moves its message forward (and is fanned out). */
  advances: boolean[];
  /** The messages whose rank rose, with their new rank. */
  raised: Map<string, StatusStep>;
}

/**
 * Applies a batch's status steps (null: an event that is no status) in stream order against the
 * ranks fanned out before (`current`, by message key; absent: nothing yet, rank 0): a step advances
 * when it ranks above everything of its message before it, stored or earlier in the batch.
 */
export function applyForwardOnly(steps: (StatusStep | null)[], current: Map<string, number>): ForwardOnly {
  const ranks = new Map(current);
  const raised = new Map<string, StatusStep>();
  const advances = steps.map((step) => {
    if (!step) return true;
    const key = messageKeyOf(step);
    if (step.rank <= (ranks.get(key) ?? 0)) return false;
    ranks.set(key, step.rank);
    raised.set(key, step);
    return true;
  });
  return { advances, raised };
}
