import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { sqlRows } from '@app/database';
import { ImportFormat } from './import-rows';

export type ImportState = 'receiving' | 'processing' | 'completed' | 'failed';

export interface ImportRecord {
  id: string;
  account_id: string;
  format: ImportFormat;
  state: ImportState;
  rows_read: number;
  created: number;
  updated: number;
  unchanged: number;
  rejected: number;
  consent_refused: number;
  failure: string | null;
  created_at: Date;
  finished_at: Date | null;
}

export interface Rejection {
  row: number;
  /** The external id the row gives, as written, when it gives one. */
  external_id?: string | null;
  field: string;
  reason: string;
}

/** What one batch of an import did. */
export interface BatchCounts {
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  rejected: number;
}

/**
 * Text as PostgreSQL stores it: what an import file says can end up in a field name or a reason
 * (an attribute key, a column name), so control characters and lone surrogates become `?`.
 */
const storable = (text: string, max = 300): string =>
  text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '?')
    .slice(0, max);

const COLUMNS = `id, account_id, format, state, rows_read, created, updated, unchanged, rejected, consent_refused, failure,
  created_at, finished_at`;

/** The only place that queries contact_imports and contact_import_rejections. */
@Injectable()
export class ContactImportsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * A new import of the account, unless it already has `max` under way (receiving or processing,
   * in any process): null then. Two uploads at once are counted one after the other.
   */
  createWithin(accountId: string, format: ImportFormat, max: number): Promise<ImportRecord | null> {
    return this.ds.transaction(async (em) => {
      await em.query(`SELECT pg_advisory_xact_lock(hashtextextended('contact-imports:' || $1, 0))`, [accountId]);
      const [{ n }] = await sqlRows<{ n: number }>(
        em,
        `SELECT count(*)::int AS n FROM contact_imports WHERE account_id = $1 AND state IN ('receiving', 'processing')`,
        [accountId],
      );
      if (n >= max) return null;
      const [row] = await sqlRows<ImportRecord>(
        em,
        `INSERT INTO contact_imports (id, account_id, format, state) VALUES ($1, $2, $3, 'receiving') RETURNING ${COLUMNS}`,
        [uuidv7(), accountId, format],
      );
      return row;
    });
  }

  /** The process holding these imports is alive (the stale sweep leaves them be). */
  async heartbeat(ids: string[]): Promise<void> {
    if (!ids.length) return;
    await this.ds.query(
      `UPDATE contact_imports SET heartbeat_at = now() WHERE id = ANY($1::uuid[]) AND state IN ('receiving', 'processing')`,
      [ids],
    );
  }

  /** Which of these imports this database knows, and which of those have ended. */
  async states(ids: string[]): Promise<{ known: Set<string>; ended: Set<string> }> {
    const rows = await sqlRows<{ id: string; state: ImportState }>(
      this.ds,
      `SELECT id, state FROM contact_imports WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    return {
      known: new Set(rows.map((r) => r.id)),
      ended: new Set(rows.filter((r) => r.state === 'completed' || r.state === 'failed').map((r) => r.id)),
    };
  }

  async find(id: string): Promise<ImportRecord | null> {
    const [row] = await sqlRows<ImportRecord>(this.ds, `SELECT ${COLUMNS} FROM contact_imports WHERE id = $1`, [id]);
    return row ?? null;
  }

  async setState(id: string, state: ImportState, failure: string | null = null): Promise<void> {
    await this.ds.query(
      `UPDATE contact_imports SET state = $2, failure = $3, heartbeat_at = now(),
              finished_at = CASE WHEN $2 IN ('completed', 'failed') THEN now() ELSE finished_at END
        WHERE id = $1`,
      [id, state, failure === null ? null : storable(failure)],
    );
  }

  /** Adds a batch's counts and rejections, in the transaction that wrote its contacts. */
  async recordBatch(em: EntityManager, id: string, counts: BatchCounts, rejections: Rejection[]): Promise<void> {
    await em.query(
      `UPDATE contact_imports SET rows_read = rows_read + $2, created = created + $3, updated = updated + $4,
              unchanged = unchanged + $5, rejected = rejected + $6, heartbeat_at = now()
        WHERE id = $1`,
      [id, counts.rows, counts.created, counts.updated, counts.unchanged, counts.rejected],
    );
    await this.addRejections(em, id, rejections);
  }

  /** Consent changes of a batch the rules refused (the rows' contacts were imported). */
  async recordConsentRefusals(id: string, rejections: Rejection[]): Promise<void> {
    if (!rejections.length) return;
    await this.ds.transaction(async (em) => {
      await em.query(`UPDATE contact_imports SET consent_refused = consent_refused + $2 WHERE id = $1`, [
        id,
        new Set(rejections.map((r) => r.row)).size,
      ]);
      await this.addRejections(em, id, rejections);
    });
  }

  private async addRejections(em: EntityManager, id: string, rejections: Rejection[]): Promise<void> {
    if (!rejections.length) return;
    await em.query(
      `INSERT INTO contact_import_rejections (import_id, row_number, field, reason, external_id)
       SELECT $1, * FROM unnest($2::integer[], $3::text[], $4::text[], $5::text[]) ON CONFLICT DO NOTHING`,
      [
        id,
        rejections.map((r) => r.row),
        rejections.map((r) => storable(r.field, 100)),
        rejections.map((r) => storable(r.reason)),
        rejections.map((r) => (r.external_id ? storable(r.external_id, 128) : null)),
      ],
    );
  }

  /** Rejections of an import in row order, after `afterRow`. */
  rejections(id: string, afterRow: number, limit: number): Promise<Rejection[]> {
    return sqlRows<Rejection>(
      this.ds,
      `SELECT row_number AS row, external_id, field, reason FROM contact_import_rejections
        WHERE import_id = $1 AND row_number > $2 ORDER BY row_number, field LIMIT $3`,
      [id, afterRow, limit],
    );
  }

  /** Imports whose process stopped (no batch for `staleSeconds`): failed, to be imported again. */
  async failStale(staleSeconds: number): Promise<number> {
    const rows = await sqlRows<{ id: string }>(
      this.ds,
      `UPDATE contact_imports SET state = 'failed', finished_at = now(),
              failure = 'interrupted (the gateway stopped); import the file again: rows already imported stay unchanged'
        WHERE state IN ('receiving', 'processing') AND heartbeat_at < now() - make_interval(secs => $1)
        RETURNING id`,
      [staleSeconds],
    );
    return rows.length;
  }
}
