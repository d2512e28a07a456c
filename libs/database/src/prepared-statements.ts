import { Client } from 'pg';

/** Distinct statements given a name per process; past this, new statements go unnamed. */
export const NAMED_STATEMENTS_MAX = 512;
/** A statement is named once it has been sent this many times (one-off statements stay unnamed). */
const REPEATS_BEFORE_NAMING = 3;
/** Statements counted towards naming at most, so that one-off texts cannot grow the map. */
const COUNTED_MAX = 4096;

const PATCHED = Symbol('repeated statements named');
/** PostgreSQL's answer when a prepared statement's result columns changed under it (a migration). */
const RESULT_TYPE_CHANGED = '0A000';

type QueryFn = (this: Client, ...args: unknown[]) => unknown;

/**
 * Sends the statements a process repeats as named prepared statements, so that PostgreSQL parses
 * each once per connection instead of at every execution (node-postgres sends every parameterized
 * query unnamed: parsed, analysed and planned each time; on the status path that was a third of
 * PostgreSQL's time, the batched CTEs the most). Installed on node-postgres' client, it names a
 * parameterized statement once the process has sent its exact text a third time, so one-off and
 * generated texts stay unnamed, and at most NAMED_STATEMENTS_MAX of them. PostgreSQL re-plans a
 * prepared statement by itself when the tables under it change, but refuses one whose result
 * columns changed (a migration adding a column under `SELECT *`): that statement fails once, as
 * a transient error its caller retries, and goes unnamed from then on.
 */
export function nameRepeatedStatements(): void {
  const proto = Client.prototype as unknown as { query: QueryFn; [PATCHED]?: true };
  if (proto[PATCHED]) return;
  proto[PATCHED] = true;
  const query = proto.query;
  proto.query = function (this: Client, ...args: unknown[]) {
    const [text, values, callback] = args;
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || callback !== undefined)
      return query.apply(this, args);
    const name = repeatedStatementName(text);
    if (!name) return query.apply(this, args);
    return (query.call(this, { name, text, values }) as Promise<unknown>).catch((err: unknown) => {
      statementFailed(text, err);
      throw err;
    });
  };
}

const names = new Map<string, string>();
const counts = new Map<string, number>();
const never = new Set<string>();
let named = 0;

/**
 * The name a parameterized statement is prepared under, once this process has sent its text
 * REPEATS_BEFORE_NAMING times (undefined before, and for texts past NAMED_STATEMENTS_MAX).
 */
export function repeatedStatementName(text: string): string | undefined {
  const known = names.get(text);
  if (known) return known;
  if (names.size >= NAMED_STATEMENTS_MAX || never.has(text)) return undefined;
  const count = (counts.get(text) ?? 0) + 1;
  if (count < REPEATS_BEFORE_NAMING) {
    if (counts.has(text) || counts.size < COUNTED_MAX) counts.set(text, count);
    return undefined;
  }
  counts.delete(text);
  const name = `s${++named}`;
  names.set(text, name);
  return name;
}

/**
 * Keeps `text` unnamed for good: PostgreSQL then plans it for the values of each execution (a
 * custom plan), where a prepared statement would soon settle on one generic plan. For statements
 * whose best plan depends on how common a value is (a label on a few rows, or on most). At most
 * COUNTED_MAX texts are kept so; past that they are named as any other.
 */
export function planEachTime(text: string): void {
  if (never.has(text) || never.size >= COUNTED_MAX) return;
  never.add(text);
  counts.delete(text);
  names.delete(text);
}

/** A named statement PostgreSQL refused for its changed result columns goes unnamed from then on. */
export function statementFailed(text: string, err: unknown): void {
  if ((err as { code?: string } | null)?.code === RESULT_TYPE_CHANGED) {
    names.delete(text);
    never.add(text);
  }
}
