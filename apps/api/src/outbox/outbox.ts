import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { NatsClients, publishDurableWithin } from '@app/messaging';
import { GroupCommit, returnedRows } from '@app/database';

/** A publish a committed transaction owes JetStream; `id` is its Nats-Msg-Id. */
export interface OutboxEntry {
  id: string;
  subject: string;
  payload: unknown;
}

/** Publishes with `Nats-Msg-Id`, resolving once the stream stored it (injected: specs replace it). */
@Injectable()
export class StreamPublisher {
  constructor(private readonly clients: NatsClients) {}

  /**
   * Stores an entry on its stream within one deadline, trying again with the same Nats-Msg-Id
   * when the server does not answer (a publish stored but whose ack was lost comes back as a
   * duplicate), so a send never waits on a silent broker past the deadline.
   */
  async publish(
    entry: OutboxEntry,
    opts: { deadlineMs?: number; onRetry?: (attempt: number, err: unknown) => void } = {},
  ): Promise<void> {
    await publishDurableWithin(this.clients.js, entry.subject, entry.payload, entry.id, opts);
  }

  /** False while the connection to the broker is down (the client saw it close): a publish cannot be stored. */
  connected(): boolean {
    return this.clients.isConnected();
  }
}

/** The only place that queries the outbox table. */
@Injectable()
export class OutboxRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Adds entries inside the caller's transaction (the one that records what they publish). */
  async insert(em: EntityManager, entries: OutboxEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await em.query(this.insertSql('$1'), [JSON.stringify(entries)]);
  }

  /** The statement that adds the entries given as JSON in parameter `param` (with `gate`, only when it holds), returning their ids. */
  insertSql(param: string, gate = 'true'): string {
    return `INSERT INTO outbox (id, subject, payload)
       SELECT x.id, x.subject, x.payload FROM jsonb_to_recordset(${param}::jsonb) AS x(id text, subject text, payload jsonb)
       WHERE ${gate}
       RETURNING id`;
  }

  async delete(ids: string[], em: EntityManager = this.ds.manager): Promise<void> {
    await em.query(`DELETE FROM outbox WHERE id = ANY($1::text[])`, [ids]);
  }

  /** Takes an entry back before it was published; false when it is gone (published) already. */
  async withdraw(em: EntityManager, id: string): Promise<boolean> {
    const rows = returnedRows<unknown>(await em.query(`DELETE FROM outbox WHERE id = $1 RETURNING id`, [id]));
    return rows.length > 0;
  }

  /** Entries older than `olderThanMs`, locked for this transaction; others relaying skip them. */
  async claimStale(em: EntityManager, olderThanMs: number, limit: number): Promise<OutboxEntry[]> {
    return em.query(
      `SELECT id, subject, payload FROM outbox WHERE created_at < now() - make_interval(secs => $1::double precision / 1000)
       ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [olderThanMs, limit],
    );
  }

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }
}

const RELAY_BATCH = 100;

/**
 * Closes the gap between commit and publish: what a transaction must publish is written in it as
 * an outbox row; the request path publishes it right after the commit and deletes the row (the
 * content is gone from Postgres once the stream has it); the relay publishes rows a crash left
 * behind, with the same Nats-Msg-Id, so the stream stores each once.
 */
@Injectable()
export class Outbox {
  private readonly logger = new Logger(Outbox.name);
  private readonly deletes: GroupCommit<string, void>;

  constructor(
    private readonly rows: OutboxRepository,
    private readonly publisher: StreamPublisher,
  ) {
    this.deletes = new GroupCommit<string, void>(async (_key, ids) => {
      await this.rows.delete(ids);
      return ids.map(() => undefined);
    }, 1000);
  }

  /**
   * Publishes an entry within the publish deadline (`deadlineMs` to shorten it), then deletes its
   * row. A rejection means the stream did not confirm it in time (it may have stored it): the row
   * stays, and the relay publishes it again under the same Nats-Msg-Id.
   */
  async publish(entry: OutboxEntry, deadlineMs?: number): Promise<void> {
    await this.publisher.publish(entry, {
      deadlineMs,
      onRetry: (attempt, err) => this.logger.warn({ err, id: entry.id, attempt }, 'publish failed, trying again'),
    });
    // Published: a row left by a failed delete is only republished by the relay (stored once).
    await this.deletes.submit('', entry.id).catch((err: unknown) => {
      this.logger.warn({ err, id: entry.id }, 'outbox row not deleted; the relay will finish it');
    });
  }

  /** False while the broker is known to be unreachable: a send then gets its 503 at once, not after the deadline. */
  connected(): boolean {
    return this.publisher.connected();
  }

  /** Publishes the rows older than `olderThanMs` (left by a crash or a failed publish); returns how many. */
  async relay(olderThanMs: number): Promise<number> {
    let total = 0;
    for (;;) {
      const published = await this.rows.transaction(async (em) => {
        const entries = await this.rows.claimStale(em, olderThanMs, RELAY_BATCH);
        for (const entry of entries) await this.publisher.publish(entry);
        if (entries.length)
          await this.rows.delete(
            entries.map((e) => e.id),
            em,
          );
        return entries.length;
      });
      total += published;
      if (published < RELAY_BATCH) return total;
    }
  }
}
