import { Connection } from 'pg';

/** What a process wrote to PostgreSQL while some work ran (`pgWire`). */
export interface PgWire {
  /** Each statement's text as written: simple queries and parsed ones (a prepared statement executed again is not parsed again). */
  texts: string[];
  /** Round trips: a simple query, or the Sync that ends an extended one. */
  roundTrips: number;
}

/**
 * Records what every node-postgres connection of this process writes while `work` runs (a
 * rejection of `work` is swallowed: the caller asserts on what it left behind).
 */
export async function pgWire(work: () => Promise<unknown>): Promise<PgWire> {
  type Write = (this: unknown, ...a: unknown[]) => void;
  const proto = Connection.prototype as unknown as Record<'query' | 'parse' | 'sync', Write>;
  const original = { query: proto.query, parse: proto.parse, sync: proto.sync };
  const wire: PgWire = { texts: [], roundTrips: 0 };
  proto.query = function (text) {
    wire.texts.push(text as string);
    wire.roundTrips++;
    original.query.call(this, text);
  };
  proto.parse = function (q) {
    wire.texts.push((q as { text: string }).text);
    original.parse.call(this, q);
  };
  proto.sync = function () {
    wire.roundTrips++;
    original.sync.call(this);
  };
  try {
    await work().catch(() => undefined);
    return wire;
  } finally {
    Object.assign(proto, original);
  }
}
