import { MessageStatus, UsageCounter } from '@app/contracts';

/** What a state change adds to a usage row: SQL expressions over the source's columns. */
export type UsageIncrements = Partial<Record<UsageCounter | 'cost', string>>;

/**
 * The statement that adds a state change's counts to the usage rows, to run as a CTE of the very
 * statement that makes the change (so it counts exactly when the change is applied, in its
 * transaction). `source` is a relation with the columns user_id, created_at (the message's
 * acceptance: the row's hour), channel, category and those the increments use. Rows are upserted
 * in key order, so concurrent statements lock them in one order.
 */
export function usageUpsert(source: string, increments: UsageIncrements): string {
  const columns = Object.keys(increments) as (keyof UsageIncrements)[];
  return `INSERT INTO usage_hourly AS u (user_id, hour, channel, category, ${columns.join(', ')})
    SELECT s.user_id, date_trunc('hour', s.created_at, 'UTC') AS hour, s.channel, s.category,
           ${columns.map((c) => `sum(${increments[c]})`).join(', ')}
    FROM ${source} s
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (user_id, hour, channel, category) DO UPDATE
      SET ${columns.map((c) => `${c} = u.${c} + excluded.${c}`).join(', ')}`;
}

const CHAIN: MessageStatus[] = ['QUEUED', 'SENT', 'DELIVERED', 'READ'];

/** What moves of messages' statuses add to the usage counters (sent, delivered, read, failed). */
export type StatusCounts = Record<Exclude<UsageCounter, 'queued'>, number>;

export function noStatusCounts(): StatusCounts {
  return { sent: 0, delivered: 0, read: 0, failed: 0 };
}

/**
 * Adds what a forward move from `prev` to `next` counts: FAILED counts as failed; a move along
 * QUEUED -> SENT -> DELIVERED -> READ counts every step it reaches or passes over that the message
 * had not reached yet (a read receipt before its delivery receipt counts the message as delivered
 * and read, once each).
 */
export function countStatusMove(prev: MessageStatus, next: MessageStatus, into: StatusCounts): StatusCounts {
  if (next === 'FAILED') {
    into.failed += 1;
    return into;
  }
  for (let i = CHAIN.indexOf(prev) + 1; i <= CHAIN.indexOf(next); i++) {
    into[CHAIN[i].toLowerCase() as keyof StatusCounts] += 1;
  }
  return into;
}

/** One message's status move as the usage report counts it, for a later statement to add. */
export interface CountedMove extends StatusCounts {
  user_id: string;
  /** The message's acceptance (the usage row's hour). */
  created_at: Date;
  channel: string;
  category: string;
}

/** The increments of `CountedMove` rows (and of any relation with their columns) to a usage row. */
export const MOVE_INCREMENTS: UsageIncrements = {
  sent: 's.sent',
  delivered: 's.delivered',
  read: 's.read',
  failed: 's.failed',
};

/**
 * `CountedMove` rows given as JSON in parameter `param`, as a relation for `usageUpsert` (with
 * `cost` 0), read only once the data-modifying CTE `after` has run: a statement that takes a balance
 * row counts usage after it, as every writer orders those rows.
 */
export function countedMovesSql(param: string, after: string): string {
  return `SELECT k.user_id, k.created_at, k.channel, k.category, 0::numeric AS cost,
                 k.sent, k.delivered, k.read, k.failed
          FROM jsonb_to_recordset(${param}::jsonb) AS k(user_id uuid, created_at timestamptz, channel text,
               category text, sent int, delivered int, read int, failed int)
          WHERE (SELECT count(*) FROM ${after}) >= 0`;
}
