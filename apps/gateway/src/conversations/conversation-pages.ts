import { ConversationStatus } from '@app/contracts';

/** What a list of conversations is narrowed to (docs/conversations.md, Paging). */
export interface ConversationFilter {
  status?: ConversationStatus;
  assignee?: string;
  channel?: string;
  label?: string;
  unread?: boolean;
  updatedSince?: Date;
}

/** A timestamptz as exact text (microseconds, UTC), for list cursors. */
export const EXACT = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** A conversation's columns with its contact's name: `c` joined to its contact `k` (CONTACT_JOIN). */
export const CONVERSATION = `c.*, k.name AS contact_name`;
export const CONTACT_JOIN = `LEFT JOIN contacts k ON k.id = c.contact_id`;

/**
 * The statement of a page of the account's conversations, the latest updated first, and its
 * parameters: `after` is a cursor's (updated_at, id); one more row than `limit` is read, to tell
 * whether there are more. Each filter narrows along its own index (docs/conversations.md, Paging).
 */
export function conversationPageQuery(
  accountId: string,
  f: ConversationFilter,
  after: { updatedAt: string; id: string } | null,
  limit: number,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [accountId];
  const where = ['c.account_id = $1'];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (f.status) add((p) => `c.status = ${p}`, f.status);
  if (f.assignee) add((p) => `c.assignee = ${p}`, f.assignee);
  if (f.channel) add((p) => `c.channel = ${p}`, f.channel);
  if (f.label) add((p) => `c.labels @> ARRAY[${p}::text]`, f.label);
  if (f.unread === true) where.push('c.unread_count > 0');
  if (f.unread === false) where.push('c.unread_count = 0');
  if (f.updatedSince) add((p) => `c.updated_at >= ${p}`, f.updatedSince);
  if (after) {
    params.push(after.updatedAt, after.id);
    where.push(`(c.updated_at, c.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  // The limit is written in (a whole number from 2 to 101): a statement planned once for any
  // limit would be planned for a tenth of the account's rows, in parallel, instead of a page.
  const sql = `SELECT ${CONVERSATION}, ${EXACT('c.updated_at')} AS cursor_at FROM conversations c ${CONTACT_JOIN}
        WHERE ${where.join(' AND ')} ORDER BY c.updated_at DESC, c.id DESC LIMIT ${Math.trunc(limit) + 1}`;
  return { sql, params };
}
