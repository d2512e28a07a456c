import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { returnedRows } from '@app/database';

/** What the window knows about some recipients of one app, read under the app's counter lock. */
export interface TierSnapshot {
  /** Rows of the app's window, live or expired but not yet swept: never below the live count. */
  rows: number;
  /** Recipients sent a template within the last 24 hours. */
  live: Set<string>;
  /** Recipients whose last template is older than 24 hours (their row is still counted in `rows`). */
  expired: Set<string>;
  /** Whether expired rows were just swept, so `rows` is the exact live count. */
  exact: boolean;
}

/**
 * The messaging-tier decision of one app inside one send transaction: a repeat recipient always
 * passes; a new one (or one whose last template is over 24 hours old) only while the unique
 * recipients of the last 24 hours stay within the cap. Exact once the snapshot is.
 */
export class TierGate {
  private readonly admitted = new Set<string>();

  constructor(
    readonly appId: number,
    readonly cap: number,
    private snapshot: TierSnapshot,
  ) {}

  get exact(): boolean {
    return this.snapshot.exact;
  }

  /** Rows this transaction adds to the window (recipients it has never seen). */
  get addedRows(): number {
    let n = 0;
    for (const r of this.admitted) if (!this.snapshot.live.has(r) && !this.snapshot.expired.has(r)) n++;
    return n;
  }

  get recipients(): string[] {
    return [...this.admitted];
  }

  allows(recipient: string): boolean {
    if (this.snapshot.live.has(recipient) || this.admitted.has(recipient)) return true;
    // An expired row refreshed by this transaction is counted in `rows` already.
    return this.snapshot.rows + this.addedRows < this.cap;
  }

  admit(recipient: string): void {
    this.admitted.add(recipient);
  }

  /** A fresh snapshot after a sweep: what was admitted stays admitted. */
  replace(snapshot: TierSnapshot): void {
    this.snapshot = snapshot;
  }
}

/** The only place that queries tier_recipients and tier_usage. */
@Injectable()
export class TierWindowRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Locks the apps' counters until the transaction ends (one short statement, in app id order;
   * only sends of the apps' own user wait on them) and reads the windows' rows about these
   * recipients, for every app of a send group at once.
   */
  async snapshots(
    em: EntityManager,
    asks: { appId: number; recipients: string[] }[],
    exact = false,
  ): Promise<Map<number, TierSnapshot>> {
    const usage = returnedRows<{ app_id: number; recipients: number }>(
      await em.query(
        `INSERT INTO tier_usage (app_id, recipients)
         SELECT a, 0 FROM unnest($1::integer[]) AS a ORDER BY a
         ON CONFLICT (app_id) DO UPDATE SET recipients = tier_usage.recipients
         RETURNING app_id, recipients`,
        [asks.map((a) => a.appId)],
      ),
    );
    const pairs = asks.flatMap((a) => a.recipients.map((r) => [a.appId, r] as const));
    const rows: { app_id: number; recipient: string; live: boolean }[] = await em.query(
      `SELECT w.app_id, w.recipient, w.last_sent_at > now() - interval '24 hours' AS live
         FROM tier_recipients w JOIN unnest($1::integer[], $2::text[]) AS q(app_id, recipient)
           ON w.app_id = q.app_id AND w.recipient = q.recipient`,
      [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
    );
    const snapshots = new Map<number, TierSnapshot>();
    for (const u of usage) {
      snapshots.set(Number(u.app_id), { rows: Number(u.recipients), live: new Set(), expired: new Set(), exact });
    }
    for (const r of rows) {
      const snap = snapshots.get(Number(r.app_id))!;
      (r.live ? snap.live : snap.expired).add(r.recipient);
    }
    return snapshots;
  }

  /** Deletes the app's expired rows and takes them off its counter (counter lock held); returns how many. */
  async sweepApp(em: EntityManager, appId: number): Promise<number> {
    const rows = returnedRows<{ n: string }>(
      await em.query(
        `WITH d AS (
           DELETE FROM tier_recipients WHERE app_id = $1 AND last_sent_at <= now() - interval '24 hours' RETURNING 1
         ), u AS (
           UPDATE tier_usage SET recipients = recipients - (SELECT count(*) FROM d) WHERE app_id = $1
         )
         SELECT count(*) AS n FROM d`,
        [appId],
      ),
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Recipients of the app's window now: those sent a template within the last 24 hours. */
  async liveRecipients(appId: number): Promise<number> {
    const rows: { n: number }[] = await this.ds.query(
      `SELECT count(*)::int AS n FROM tier_recipients WHERE app_id = $1 AND last_sent_at > now() - interval '24 hours'`,
      [appId],
    );
    return rows[0]?.n ?? 0;
  }

  /** Seconds until the oldest live recipient of the app leaves the window (at least 1). */
  async freesInSeconds(em: EntityManager, appId: number): Promise<number> {
    const rows: { frees_in: string | null }[] = await em.query(
      `SELECT extract(epoch FROM min(last_sent_at) + interval '24 hours' - now()) AS frees_in
       FROM tier_recipients WHERE app_id = $1 AND last_sent_at > now() - interval '24 hours'`,
      [appId],
    );
    return Math.max(1, Math.ceil(Number(rows[0]?.frees_in ?? 1)));
  }

  /** Records the admitted recipients (a refreshed expired row starts a new first send) and the counters. */
  async record(em: EntityManager, gates: TierGate[]): Promise<void> {
    const used = gates.filter((g) => g.recipients.length > 0);
    if (used.length === 0) return;
    const pairs = used.flatMap((g) => g.recipients.map((r) => [g.appId, r] as const));
    await em.query(
      `WITH r AS (${recordSql('$1', '$2')})
       UPDATE tier_usage u SET recipients = u.recipients + a.added
         FROM unnest($3::integer[], $4::integer[]) AS a(app_id, added)
        WHERE u.app_id = a.app_id`,
      [pairs.map((p) => p[0]), pairs.map((p) => p[1]), used.map((g) => g.appId), used.map((g) => g.addedRows)],
    );
  }

  /**
   * The parts of one statement that admit template recipients (given as three arrays, one entry per
   * recipient: apps, recipients and their apps' caps) when that needs no decision recipient by
   * recipient, as read when the statement starts:
   * - `counters`, CTEs: what the window has of them (`tier_seen`); the counters of the apps with new
   *   ones, locked in app id order (as `snapshots` locks them) and moved up by their new ones while
   *   that stays within the cap (`tier_room`);
   * - `room`: a condition that holds when every such counter moved and no recipient has an expired
   *   row (those are the locked path's, which sweeps and decides each);
   * - `live`, a CTE: records the recipients, with `gate`, only when it holds;
   * - `checked`, for the statement's result: aborts the statement (SQLSTATE 40001) when a recipient
   *   was not where the statement first saw it: a new one another send recorded meanwhile, one in
   *   the window swept since. A counter then moved for nothing; the abort takes that back too.
   */
  admitSql(
    p: { apps: string; recipients: string; caps: string },
    gate: string,
  ): { counters: string; room: string; live: string; checked: string } {
    return {
      counters: `tier_seen AS (
         SELECT q.app_id, q.recipient, q.cap, w.app_id IS NOT NULL AS present,
                coalesce(w.last_sent_at > now() - interval '24 hours', false) AS live
         FROM unnest(${p.apps}::integer[], ${p.recipients}::text[], ${p.caps}::integer[]) AS q(app_id, recipient, cap)
         LEFT JOIN tier_recipients w ON w.app_id = q.app_id AND w.recipient = q.recipient
       ), tier_new AS (
         SELECT app_id, count(*) AS added, max(cap) AS cap FROM tier_seen WHERE NOT present GROUP BY app_id
       ), tier_locked AS (
         SELECT app_id FROM tier_usage WHERE app_id IN (SELECT app_id FROM tier_new) ORDER BY app_id FOR UPDATE
       ), tier_room AS (
         UPDATE tier_usage u SET recipients = u.recipients + n.added
         FROM tier_new n
         WHERE u.app_id = n.app_id AND u.app_id IN (SELECT app_id FROM tier_locked) AND u.recipients + n.added <= n.cap
         RETURNING u.app_id
       )`,
      room: `NOT EXISTS (SELECT 1 FROM tier_seen WHERE present AND NOT live)
         AND (SELECT count(*) FROM tier_room) = (SELECT count(*) FROM tier_new)`,
      live: `tier_live AS (
         ${recordSql(p.apps, p.recipients, gate)}
         RETURNING app_id, recipient, xmax = 0 AS inserted
       )`,
      checked: `abort_unless(NOT EXISTS (
           SELECT 1 FROM tier_live t JOIN tier_seen e ON t.app_id = e.app_id AND t.recipient = e.recipient
           WHERE t.inserted = e.present), 'a recipient is not where the statement first saw it')`,
    };
  }

  /**
   * Housekeeping: deletes every app's expired rows in small transactions (each takes one app's
   * counter lock briefly); returns how many.
   */
  async sweep(): Promise<number> {
    const apps: { app_id: number }[] = await this.ds.query(
      `SELECT app_id FROM tier_usage u WHERE EXISTS (
         SELECT 1 FROM tier_recipients r WHERE r.app_id = u.app_id AND r.last_sent_at <= now() - interval '24 hours')`,
    );
    let total = 0;
    for (const { app_id } of apps) {
      total += await this.ds.transaction(async (em) => {
        await em.query(`SELECT recipients FROM tier_usage WHERE app_id = $1 FOR UPDATE`, [app_id]);
        return this.sweepApp(em, app_id);
      });
    }
    return total;
  }
}

/**
 * Records sends to the recipients given as two arrays, apps and recipients (a refreshed expired
 * row starts a new first send); with `gate`, only when it holds.
 */
function recordSql(apps: string, recipients: string, gate = 'true'): string {
  return `INSERT INTO tier_recipients (app_id, recipient, first_sent_at, last_sent_at)
         SELECT app_id, recipient, now(), now() FROM unnest(${apps}::integer[], ${recipients}::text[]) AS q(app_id, recipient)
         WHERE ${gate}
         ON CONFLICT (app_id, recipient) DO UPDATE SET
           last_sent_at = now(),
           first_sent_at = CASE WHEN tier_recipients.last_sent_at <= now() - interval '24 hours'
                                THEN now() ELSE tier_recipients.first_sent_at END`;
}
