import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import {
  CampaignCounts,
  CampaignDefinition,
  CampaignPauseReason,
  CampaignRecipientInput,
  CampaignRecipientReply,
  CampaignRecipientStatus,
  CampaignSkipReason,
  CampaignState,
  CAMPAIGN_RECIPIENT_STATUSES,
  FailoverStep,
  GatewaySendChannel,
} from '@app/contracts';
import { sqlRows } from '@app/database';
import { fromUnits, toUnits } from '../billing/charges';

/** A campaign as stored. */
export interface CampaignRow {
  id: string;
  user_id: string;
  account_id: string;
  name: string;
  definition: CampaignDefinition;
  state: CampaignState;
  pause_reason: CampaignPauseReason | null;
  pause_detail: string | null;
  template_app_id: number | null;
  recipients: number;
  /** The price the next recipient waits to fit in the budget (numeric text); null when not waiting. */
  budget_wait: string | null;
  last_tick_at: Date | null;
  whatsapp_wait_until: Date | null;
  created_at: Date;
  updated_at: Date;
  launched_at: Date | null;
  started_at: Date | null;
  completed_at: Date | null;
  /** The key it was launched with (null for a draft). */
  launch_key: string | null;
}

/** A recipient the runner took for this tick. */
export interface ClaimedRecipient {
  seq: number;
  time_zone: string;
  route: FailoverStep[];
  params: string[];
  first_channel: GatewaySendChannel;
  /** Its contact, kept on the messages sent to it. */
  contact_id: string;
  external_id: string | null;
  /** Its variant's index (docs/campaigns.md#variants); null without variants. */
  variant: number | null;
}

/** One line of the recipients report, with its message's last attempt. */
export interface RecipientReportRow {
  seq: number;
  contact_id: string;
  external_id: string | null;
  state: 'pending' | 'queued' | 'skipped';
  status: CampaignRecipientStatus;
  skip_reason: CampaignSkipReason | null;
  channel: GatewaySendChannel | null;
  message_id: string | null;
  failure_code: string | null;
  queued_at: Date | null;
  updated_at: Date | null;
  next_at: Date;
  /** Its variant's index; null without variants. */
  variant: number | null;
  replied_at: Date | null;
  reply: CampaignRecipientReply | null;
}

/** What the campaign view adds up from its recipients and messages. */
export interface CampaignTotals {
  counts: CampaignCounts;
  channelsUsed: Partial<Record<GatewaySendChannel, number>>;
  held: number;
  spent: number;
  /** What the budget counts: held + spent, summed exactly. */
  committed: number;
  /** Recipients queued in the last minute. */
  lastMinute: number;
}

const COLUMNS = `id, user_id, account_id, name, definition, state, pause_reason, pause_detail, template_app_id,
  recipients, budget_wait, last_tick_at, whatsapp_wait_until, created_at, updated_at, launched_at, started_at, completed_at, launch_key`;

/**
 * A recipient's status: its state until it was sent, then its message's status (the last
 * attempt's over a failover route, lowercased). `r` is the recipient, `m` its first message, `l`
 * the last attempt (a lateral join on message_attempts; absent for a single-channel message).
 */
const STATUS_SQL = `CASE WHEN r.state = 'queued' THEN lower(coalesce(l.status, m.status, 'QUEUED')) ELSE r.state END`;
const LAST_ATTEMPT_SQL = `LEFT JOIN messages m ON m.id = r.message_id
  LEFT JOIN LATERAL (
    SELECT lm.status, lm.channel, lm.failure_code, lm.updated_at
      FROM message_attempts a JOIN messages lm ON lm.id = a.message_id
     WHERE a.parent_id = r.message_id
     ORDER BY a.position DESC LIMIT 1) l ON r.message_id IS NOT NULL`;

/** The only place that queries campaigns and campaign_recipients, but the budget's reads and writes (campaign-budget.ts). */
@Injectable()
export class CampaignsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }

  async insert(c: {
    id: string;
    userId: string;
    accountId: string;
    definition: CampaignDefinition;
  }): Promise<CampaignRow> {
    const [row] = await sqlRows<CampaignRow>(
      this.ds,
      `INSERT INTO campaigns (id, user_id, account_id, name, definition) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      [c.id, c.userId, c.accountId, c.definition.name, JSON.stringify(c.definition)],
    );
    return row;
  }

  async find(id: string, em: EntityManager | DataSource = this.ds, lock = false): Promise<CampaignRow | null> {
    const [row] = await sqlRows<CampaignRow>(
      em,
      `SELECT ${COLUMNS} FROM campaigns WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return row ?? null;
  }

  /** An account's campaigns, newest first (ids are time-ordered), after `cursor`. */
  list(accountId: string, state: CampaignState | null, cursor: string | null, limit: number): Promise<CampaignRow[]> {
    return sqlRows<CampaignRow>(
      this.ds,
      `SELECT ${COLUMNS} FROM campaigns
        WHERE account_id = $1 AND ($2::text IS NULL OR state = $2) AND ($3::uuid IS NULL OR id < $3)
        ORDER BY id DESC LIMIT $4`,
      [accountId, state, cursor, limit],
    );
  }

  async updateDefinition(em: EntityManager, id: string, definition: CampaignDefinition): Promise<CampaignRow> {
    const [row] = await sqlRows<CampaignRow>(
      em,
      `UPDATE campaigns SET definition = $2, name = $3, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, JSON.stringify(definition), definition.name],
    );
    return row;
  }

  async delete(em: EntityManager, id: string): Promise<void> {
    await em.query(`DELETE FROM campaign_recipients WHERE campaign_id = $1`, [id]);
    await em.query(`DELETE FROM campaigns WHERE id = $1`, [id]);
  }

  async deleteRecipients(em: EntityManager, id: string): Promise<void> {
    await em.query(`DELETE FROM campaign_recipients WHERE campaign_id = $1`, [id]);
  }

  /** One page of recipients in one statement; a seq loaded before is left as it is. */
  async insertRecipients(em: EntityManager, id: string, page: CampaignRecipientInput[]): Promise<number> {
    if (page.length === 0) return 0;
    const col = <T>(f: (r: CampaignRecipientInput) => T) => page.map(f);
    const rows = await sqlRows<{ seq: number }>(
      em,
      `INSERT INTO campaign_recipients
         (campaign_id, seq, contact_id, external_id, time_zone, route, first_channel, params, state, skip_reason, variant)
       SELECT $1, x.seq, x.contact_id, x.external_id, x.time_zone, x.route, x.first_channel, x.params,
              CASE WHEN x.skip IS NULL THEN 'pending' ELSE 'skipped' END, x.skip, x.variant
         FROM unnest($2::integer[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::text[], $8::jsonb[], $9::text[], $10::smallint[])
           AS x(seq, contact_id, external_id, time_zone, route, first_channel, params, skip, variant)
       ON CONFLICT (campaign_id, seq) DO NOTHING
       RETURNING seq`,
      [
        id,
        col((r) => r.seq),
        col((r) => r.contact_id),
        col((r) => r.external_id),
        col((r) => r.time_zone),
        col((r) => JSON.stringify(r.route)),
        col((r) => r.route[0]?.channel ?? null),
        col((r) => JSON.stringify(r.params)),
        col((r) => r.skip ?? null),
        col((r) => r.variant ?? null),
      ],
    );
    return rows.length;
  }

  async countRecipients(em: EntityManager, id: string): Promise<number> {
    const [row] = await sqlRows<{ n: number }>(
      em,
      `SELECT count(*)::int AS n FROM campaign_recipients WHERE campaign_id = $1`,
      [id],
    );
    return row.n;
  }

  /** Sets a campaign's state and the columns given (`now` sets a timestamp column to now()). */
  async setState(
    em: EntityManager,
    id: string,
    state: CampaignState,
    set: {
      pause_reason?: CampaignPauseReason | null;
      pause_detail?: string | null;
      template_app_id?: number | null;
      recipients?: number;
      launch_key?: string | null;
      now?: ('launched_at' | 'started_at' | 'completed_at' | 'last_tick_at')[];
    } = {},
  ): Promise<CampaignRow> {
    const params: unknown[] = [id, state];
    const sets = ['state = $2', 'updated_at = now()'];
    for (const key of ['pause_reason', 'pause_detail', 'template_app_id', 'recipients', 'launch_key'] as const) {
      if (set[key] === undefined) continue;
      params.push(set[key]);
      sets.push(`${key} = $${params.length}`);
    }
    for (const column of set.now ?? []) sets.push(`${column} = now()`);
    const [row] = await sqlRows<CampaignRow>(
      em,
      `UPDATE campaigns SET ${sets.join(', ')} WHERE id = $1 RETURNING ${COLUMNS}`,
      params,
    );
    return row;
  }

  /** Pending recipients skipped for `reason` (cancelled, end_by passed). */
  async skipPending(em: EntityManager, id: string, reason: CampaignSkipReason): Promise<number> {
    const [row] = await sqlRows<{ n: number }>(
      em,
      `WITH s AS (
         UPDATE campaign_recipients SET state = 'skipped', skip_reason = $2, claimed_until = NULL, updated_at = now()
          WHERE campaign_id = $1 AND state = 'pending' RETURNING 1
       )
       SELECT count(*)::int AS n FROM s`,
      [id, reason],
    );
    return row.n;
  }

  /** Scheduled campaigns whose start came: running now (each by one caller). */
  promoteDue(em: EntityManager): Promise<CampaignRow[]> {
    return sqlRows<CampaignRow>(
      em,
      `UPDATE campaigns SET state = 'running', started_at = coalesce(started_at, now()), updated_at = now()
        WHERE state = 'scheduled'
          AND coalesce((definition->'schedule'->>'start_at')::timestamptz, '-infinity') <= now()
        RETURNING ${COLUMNS}`,
    );
  }

  /** Running campaigns no other runner is working on now, locked for the caller's transaction. */
  lockRunning(em: EntityManager, limit: number): Promise<(CampaignRow & { now: Date })[]> {
    return sqlRows(
      em,
      `SELECT ${COLUMNS}, now() AS now FROM campaigns WHERE state = 'running'
        ORDER BY last_tick_at NULLS FIRST LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
  }

  async hasPending(em: EntityManager, id: string): Promise<boolean> {
    const rows = await sqlRows<{ one: number }>(
      em,
      `SELECT 1 AS one FROM campaign_recipients WHERE campaign_id = $1 AND state = 'pending' LIMIT 1`,
      [id],
    );
    return rows.length > 0;
  }

  /**
   * Takes up to `limit` due pending recipients of one first channel in audience order (those no
   * other runner holds), each held for `claimSeconds`.
   */
  claim(
    em: EntityManager,
    id: string,
    channel: GatewaySendChannel,
    limit: number,
    claimSeconds: number,
  ): Promise<ClaimedRecipient[]> {
    return sqlRows<ClaimedRecipient>(
      em,
      // Materialized: the due rows are chosen once (a subquery may be scanned again and take more than its limit).
      `WITH due AS MATERIALIZED (
         SELECT seq FROM campaign_recipients
          WHERE campaign_id = $1 AND state = 'pending' AND first_channel = $2 AND next_at <= now()
            AND (claimed_until IS NULL OR claimed_until < now())
          ORDER BY next_at, seq LIMIT $3 FOR UPDATE SKIP LOCKED
       )
       UPDATE campaign_recipients r SET claimed_until = now() + make_interval(secs => $4), reserved = NULL
         FROM due WHERE r.campaign_id = $1 AND r.seq = due.seq
        RETURNING r.seq, r.time_zone, r.route, r.params, r.first_channel, r.contact_id, r.external_id, r.variant`,
      [id, channel, limit, claimSeconds],
    );
  }

  /** The campaign's pacing credit is counted up to `at`. */
  async markTick(em: EntityManager, id: string, at: Date): Promise<void> {
    await em.query(`UPDATE campaigns SET last_tick_at = $2 WHERE id = $1`, [id, at.toISOString()]);
  }

  /** Recipients given back: due again at `nextAt` (now when null), no longer held. */
  async release(
    id: string,
    seqs: number[],
    nextAt: Date | null = null,
    em: EntityManager | DataSource = this.ds,
  ): Promise<void> {
    if (seqs.length === 0) return;
    await em.query(
      `UPDATE campaign_recipients SET claimed_until = NULL, next_at = coalesce($3::timestamptz, next_at), updated_at = now()
        WHERE campaign_id = $1 AND seq = ANY($2::integer[]) AND state = 'pending'`,
      [id, seqs, nextAt?.toISOString() ?? null],
    );
  }

  async skip(id: string, seq: number, reason: CampaignSkipReason): Promise<void> {
    await this.ds.query(
      `UPDATE campaign_recipients SET state = 'skipped', skip_reason = $3, claimed_until = NULL, updated_at = now()
        WHERE campaign_id = $1 AND seq = $2 AND state = 'pending'`,
      [id, seq, reason],
    );
  }

  /** WhatsApp-first recipients are not taken before `until` (the tier frees a place then). */
  async waitWhatsApp(id: string, until: Date): Promise<void> {
    await this.ds.query(
      `UPDATE campaigns SET whatsapp_wait_until = greatest(coalesce(whatsapp_wait_until, $2), $2) WHERE id = $1`,
      [id, until.toISOString()],
    );
  }

  /**
   * In a send's transaction: the recipient is sent (its message, the channel of the accepted
   * attempt); from then on the budget counts its hold instead of its reservation. Inside a
   * savepoint, so a failure here never aborts the transaction the other sends of the group share
   * (the message stands; the recipient stays pending and its idempotency key answers its next try
   * with this message).
   */
  async markSent(
    em: EntityManager,
    mark: { campaignId: string; seq: number; messageId: string; channel: string },
  ): Promise<boolean> {
    await em.query(`SAVEPOINT campaign_recipient_sent`);
    try {
      await em.query(
        `UPDATE campaign_recipients SET state = 'queued', message_id = $3, channel = $4, queued_at = now(),
                claimed_until = NULL, updated_at = now()
          WHERE campaign_id = $1 AND seq = $2 AND state = 'pending'`,
        [mark.campaignId, mark.seq, mark.messageId, mark.channel],
      );
      await em.query(`RELEASE SAVEPOINT campaign_recipient_sent`);
      return true;
    } catch {
      await em.query(`ROLLBACK TO SAVEPOINT campaign_recipient_sent`);
      return false;
    }
  }

  /**
   * A replayed send (its key answered an earlier message): the recipient is marked with that
   * message if it is not yet (the earlier mark failed).
   */
  async markReplayed(campaignId: string, seq: number, messageId: string): Promise<void> {
    await this.ds.query(
      `UPDATE campaign_recipients r SET state = 'queued', message_id = m.id, channel = m.channel,
              queued_at = m.created_at, claimed_until = NULL, updated_at = now()
         FROM messages m
        WHERE r.campaign_id = $1 AND r.seq = $2 AND r.state = 'pending' AND m.id = $3`,
      [campaignId, seq, messageId],
    );
  }

  /** Counts per status and channel, money held and spent, and the last minute's pace: two aggregate reads, together. */
  async totals(id: string, em: EntityManager | DataSource = this.ds): Promise<CampaignTotals> {
    // Grouped on the raw columns (the status is named in JS); only failover attempts are sorted.
    const grouped = sqlRows<{
      state: 'pending' | 'queued' | 'skipped';
      status: string | null;
      channel: GatewaySendChannel | null;
      n: number;
      recent: number;
    }>(
      em,
      `WITH l AS (
         SELECT DISTINCT ON (a.parent_id) a.parent_id, lm.status, lm.channel
           FROM messages lm JOIN message_attempts a ON a.message_id = lm.id
          WHERE lm.campaign_id = $1
          ORDER BY a.parent_id, a.position DESC
       )
       SELECT r.state, coalesce(l.status, m.status) AS status, coalesce(l.channel, m.channel, r.channel) AS channel,
              count(*)::int AS n, (count(*) FILTER (WHERE r.queued_at > now() - interval '60 seconds'))::int AS recent
         FROM campaign_recipients r
         LEFT JOIN messages m ON m.id = r.message_id AND m.campaign_id = $1
         LEFT JOIN l ON l.parent_id = r.message_id
        WHERE r.campaign_id = $1
        GROUP BY 1, 2, 3`,
      [id],
    );
    const summed = sqlRows<{ held: string; spent: string }>(
      em,
      `SELECT coalesce(sum(h.amount) FILTER (WHERE h.status = 'HELD'), 0) AS held, coalesce(sum(m.charged), 0) AS spent
         FROM messages m LEFT JOIN holds h ON h.message_id = m.id
        WHERE m.campaign_id = $1`,
      [id],
    );
    const [groups, [money]] = await Promise.all([grouped, summed]);
    const committed = fromUnits(toUnits(money.held) + toUnits(money.spent));
    const counts = Object.fromEntries(CAMPAIGN_RECIPIENT_STATUSES.map((s) => [s, 0])) as CampaignCounts;
    const channelsUsed: Partial<Record<GatewaySendChannel, number>> = {};
    let lastMinute = 0;
    for (const g of groups) {
      const status = g.state === 'queued' ? ((g.status ?? 'QUEUED').toLowerCase() as CampaignRecipientStatus) : g.state;
      if (status in counts) counts[status] += g.n;
      if (g.state === 'queued' && g.channel) channelsUsed[g.channel] = (channelsUsed[g.channel] ?? 0) + g.n;
      lastMinute += g.recent;
    }
    return {
      counts,
      channelsUsed,
      held: Number(money.held),
      spent: Number(money.spent),
      committed: Number(committed),
      lastMinute,
    };
  }

  /** A page of the report in audience order, each recipient with its message's last attempt. */
  recipients(
    id: string,
    filter: { status: CampaignRecipientStatus | null; channel: GatewaySendChannel | null },
    after: number,
    limit: number,
  ): Promise<RecipientReportRow[]> {
    return sqlRows<RecipientReportRow>(
      this.ds,
      `SELECT * FROM (
         SELECT r.seq, r.contact_id, r.external_id, r.state, ${STATUS_SQL} AS status, r.skip_reason,
                CASE WHEN r.state = 'queued' THEN coalesce(l.channel, m.channel, r.channel) END AS channel,
                r.message_id, coalesce(l.failure_code, m.failure_code) AS failure_code, r.queued_at,
                greatest(r.updated_at, coalesce(l.updated_at, m.updated_at)) AS updated_at,
                -- A WhatsApp-first recipient also waits for the tier to free a place.
                CASE WHEN r.first_channel = 'whatsapp' AND c.whatsapp_wait_until > r.next_at
                     THEN c.whatsapp_wait_until ELSE r.next_at END AS next_at,
                r.variant, r.replied_at, r.reply
           FROM campaign_recipients r JOIN campaigns c ON c.id = r.campaign_id ${LAST_ATTEMPT_SQL}
          WHERE r.campaign_id = $1 AND r.seq > $2
          ORDER BY r.seq
       ) x
       WHERE ($3::text IS NULL OR x.status = $3) AND ($4::text IS NULL OR x.channel = $4)
       ORDER BY x.seq LIMIT $5`,
      [id, after, filter.status, filter.channel, limit],
    );
  }
}
