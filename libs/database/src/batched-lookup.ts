import type { DataSource } from 'typeorm';
import { GroupCommit } from './group-commit';

/**
 * Group commit for reads: lookups made while one is under way go together in the next query
 * (`WHERE key = ANY(...)`), so concurrent requests share one round trip instead of one each. Each
 * caller gets the rows of its own query, read after it asked.
 */
export class BatchedLookup<Q, R> {
  private readonly group: GroupCommit<Q, R[]>;

  constructor(o: {
    /** Reads the rows of every distinct query at once. */
    load: (queries: Q[]) => Promise<R[]>;
    /** The key of a query and the key of a row that answers it. */
    queryKey: (q: Q) => string;
    rowKey: (r: R) => string;
    maxBatch?: number;
  }) {
    this.group = new GroupCommit(async (_key, queries) => {
      const distinct = new Map<string, Q>();
      for (const q of queries) distinct.set(o.queryKey(q), q);
      const byKey = new Map<string, R[]>();
      for (const row of await o.load([...distinct.values()])) {
        const k = o.rowKey(row);
        const rows = byKey.get(k);
        if (rows) rows.push(row);
        else byKey.set(k, [row]);
      }
      return queries.map((q) => byKey.get(o.queryKey(q)) ?? []);
    }, o.maxBatch ?? 500);
  }

  /** Every row that answers `q`, in the order the load returned them. */
  all(q: Q): Promise<R[]> {
    return this.group.submit('', q);
  }

  /** The row that answers `q` (a unique key), or null. */
  async one(q: Q): Promise<R | null> {
    return (await this.all(q))[0] ?? null;
  }
}

/**
 * The owner of a live (not revoked) token, by the token's hash: concurrent lookups share one query,
 * read after each of them asked (a token revoked a moment ago is refused). `from` joins the token
 * table, aliased `t` (`token_hash`, `revoked_at`), to its owner's; `columns` are the owner's columns
 * that `toOwner` reads from each row.
 */
export function liveTokenOwners<R, T>(
  /** The data source, asked for at each load (so a repository may pass its own before it is built). */
  ds: () => DataSource,
  query: { columns: string; from: string },
  toOwner: (row: R) => T,
): (tokenHash: string) => Promise<T | null> {
  const lookup = new BatchedLookup<string, { tokenHash: string; owner: T }>({
    load: async (hashes) => {
      const rows: (R & { token_hash: string })[] = await ds().query(
        `SELECT ${query.columns}, t.token_hash FROM ${query.from}
          WHERE t.token_hash = ANY($1::bpchar[]) AND t.revoked_at IS NULL`,
        [hashes],
      );
      return rows.map((r) => ({ tokenHash: r.token_hash, owner: toOwner(r) }));
    },
    queryKey: (hash) => hash,
    rowKey: (r) => r.tokenHash,
  });
  return async (tokenHash) => (await lookup.one(tokenHash))?.owner ?? null;
}
