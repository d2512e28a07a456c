import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import {
  ConsentPurpose,
  ConsentSettings,
  ConsentSource,
  ConsentState,
  DEFAULT_OPT_IN_KEYWORDS,
  DEFAULT_OPT_OUT_KEYWORDS,
  GatewaySendChannel,
} from '@app/contracts';
import { BatchedLookup, sqlRows } from '@app/database';
import { RecordedConsent } from './consent-rules';

/** One address of one business, as consent keys it (the address itself is never stored). */
export interface KeyedAddress {
  userId: string;
  channel: string;
  key: string;
}

/** What a send needs to know: the address's records and whether the business requires opt-in for marketing. */
export interface SendConsent {
  records: RecordedConsent[];
  marketingRequiresOptIn: boolean;
}

/** A change the service decided to make. */
export interface ConsentWrite extends KeyedAddress {
  purpose: ConsentPurpose;
  state: ConsentState;
  source: ConsentSource;
  evidence: string | null;
  at: Date;
}

export interface HistoryRow {
  channel: GatewaySendChannel;
  purpose: ConsentPurpose;
  state: ConsentState;
  source: ConsentSource;
  evidence: string | null;
  occurred_at: Date;
}

const addressKeyOf = (a: KeyedAddress) => `${a.userId}|${a.channel}|${a.key}`;

interface LookupRow {
  user_id: string;
  channel: string;
  address_key: string;
  purpose: ConsentPurpose | null;
  state: 'opted_in' | 'opted_out' | null;
  source: ConsentSource | null;
  since: Date | null;
  requires_opt_in: boolean | null;
}

interface SettingsRow {
  marketing_requires_opt_in: boolean;
  opt_out_keywords: string[] | null;
  opt_in_keywords: string[] | null;
}

/** The only place that queries consents, consent_history and consent_settings. */
@Injectable()
export class ConsentRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }

  /**
   * The send path's lookup: one indexed read of the address's records and its business's setting,
   * shared by the sends under way at the same time (one query for the batch).
   */
  forSend(address: KeyedAddress): Promise<SendConsent> {
    return this.sendLookups.all(address).then((rows) => ({
      records: rows.filter((r) => r.state !== null).map(recordOf),
      marketingRequiresOptIn: rows[0]?.requires_opt_in === true,
    }));
  }

  private readonly sendLookups = new BatchedLookup<KeyedAddress, LookupRow>({
    queryKey: addressKeyOf,
    rowKey: (r) => `${r.user_id}|${r.channel}|${r.address_key}`,
    load: (queries) =>
      sqlRows<LookupRow>(
        this.ds,
        `SELECT q.user_id::text AS user_id, q.channel, q.address_key, c.purpose, c.state, c.source, c.since,
                s.marketing_requires_opt_in AS requires_opt_in
           FROM unnest($1::uuid[], $2::text[], $3::text[]) AS q(user_id, channel, address_key)
           LEFT JOIN consents c
             ON c.user_id = q.user_id AND c.channel = q.channel AND c.address_key = q.address_key
           LEFT JOIN consent_settings s ON s.user_id = q.user_id`,
        [queries.map((q) => q.userId), queries.map((q) => q.channel), queries.map((q) => q.key)],
      ),
  });

  /**
   * The records of these addresses, locked for the caller's transaction (changes are decided on
   * them): an advisory lock per address also covers addresses with no row yet, so two changes of
   * one address are decided one after the other.
   */
  async lockRecords(em: EntityManager, addresses: KeyedAddress[]): Promise<Map<string, RecordedConsent[]>> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) AS k ORDER BY k`, [
      [...new Set(addresses.map(addressKeyOf))],
    ]);
    return this.recordsOf(em, addresses);
  }

  /** The records of these addresses as they are now. */
  records(addresses: KeyedAddress[]): Promise<Map<string, RecordedConsent[]>> {
    return this.recordsOf(this.ds, addresses);
  }

  private async recordsOf(
    db: DataSource | EntityManager,
    addresses: KeyedAddress[],
  ): Promise<Map<string, RecordedConsent[]>> {
    const rows = await sqlRows<LookupRow>(
      db,
      `SELECT c.user_id::text AS user_id, c.channel, c.address_key, c.purpose, c.state, c.source, c.since
         FROM consents c JOIN unnest($1::uuid[], $2::text[], $3::text[]) AS q(user_id, channel, address_key)
           ON c.user_id = q.user_id AND c.channel = q.channel AND c.address_key = q.address_key`,
      [addresses.map((a) => a.userId), addresses.map((a) => a.channel), addresses.map((a) => a.key)],
    );
    const out = new Map<string, RecordedConsent[]>();
    for (const r of rows) {
      const k = addressKeyOf({ userId: r.user_id, channel: r.channel, key: r.address_key });
      out.set(k, [...(out.get(k) ?? []), recordOf(r)]);
    }
    return out;
  }

  /** Writes decided changes: the current state (no row for `unknown`) and one history row each. */
  async write(em: EntityManager, writes: ConsentWrite[]): Promise<void> {
    if (!writes.length) return;
    const col = <T>(f: (w: ConsentWrite) => T) => writes.map(f);
    // A batch may change one address twice (STOP then START in one import): the last change wins.
    const last = new Map<string, ConsentWrite>();
    for (const w of writes) last.set(`${addressKeyOf(w)}|${w.purpose}`, w);
    const finals = [...last.values()];
    const kept = finals.filter((w) => w.state !== 'unknown');
    const cleared = finals.filter((w) => w.state === 'unknown');
    if (kept.length) {
      await em.query(
        `INSERT INTO consents (user_id, channel, address_key, purpose, state, source, since)
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
         ON CONFLICT (user_id, channel, address_key, purpose)
         DO UPDATE SET state = EXCLUDED.state, source = EXCLUDED.source, since = EXCLUDED.since`,
        [
          kept.map((w) => w.userId),
          kept.map((w) => w.channel),
          kept.map((w) => w.key),
          kept.map((w) => w.purpose),
          kept.map((w) => w.state),
          kept.map((w) => w.source),
          kept.map((w) => w.at.toISOString()),
        ],
      );
    }
    if (cleared.length) {
      await em.query(
        `DELETE FROM consents c USING unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS q(user_id, channel, address_key, purpose)
          WHERE c.user_id = q.user_id AND c.channel = q.channel AND c.address_key = q.address_key AND c.purpose = q.purpose`,
        [
          cleared.map((w) => w.userId),
          cleared.map((w) => w.channel),
          cleared.map((w) => w.key),
          cleared.map((w) => w.purpose),
        ],
      );
    }
    await em.query(
      `INSERT INTO consent_history (user_id, channel, address_key, purpose, state, source, evidence, occurred_at)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])`,
      [
        col((w) => w.userId),
        col((w) => w.channel),
        col((w) => w.key),
        col((w) => w.purpose),
        col((w) => w.state),
        col((w) => w.source),
        col((w) => w.evidence),
        col((w) => w.at.toISOString()),
      ],
    );
  }

  /** The recorded changes of these addresses, newest first. */
  history(userId: string, addresses: { channel: string; key: string }[], limit: number): Promise<HistoryRow[]> {
    return sqlRows<HistoryRow>(
      this.ds,
      `SELECT h.channel, h.purpose, h.state, h.source, h.evidence, h.occurred_at
         FROM consent_history h JOIN unnest($2::text[], $3::text[]) AS q(channel, address_key)
           ON h.channel = q.channel AND h.address_key = q.address_key
        WHERE h.user_id = $1
        ORDER BY h.occurred_at DESC, h.id DESC
        LIMIT $4`,
      [userId, addresses.map((a) => a.channel), addresses.map((a) => a.key), limit],
    );
  }

  async settings(userId: string): Promise<ConsentSettings> {
    const [row] = await sqlRows<SettingsRow>(
      this.ds,
      `SELECT marketing_requires_opt_in, opt_out_keywords, opt_in_keywords FROM consent_settings WHERE user_id = $1`,
      [userId],
    );
    return settingsOf(row);
  }

  /** Sets the given settings (the others keep their value); answers the result. */
  async updateSettings(userId: string, s: Partial<ConsentSettings>): Promise<ConsentSettings> {
    const [row] = await sqlRows<SettingsRow>(
      this.ds,
      `INSERT INTO consent_settings (user_id, marketing_requires_opt_in, opt_out_keywords, opt_in_keywords)
       VALUES ($1, coalesce($2, false), $3, $4)
       ON CONFLICT (user_id) DO UPDATE SET
         marketing_requires_opt_in = coalesce($2, consent_settings.marketing_requires_opt_in),
         opt_out_keywords = CASE WHEN $5 THEN $3 ELSE consent_settings.opt_out_keywords END,
         opt_in_keywords = CASE WHEN $6 THEN $4 ELSE consent_settings.opt_in_keywords END,
         updated_at = now()
       RETURNING marketing_requires_opt_in, opt_out_keywords, opt_in_keywords`,
      [
        userId,
        s.marketing_requires_opt_in ?? null,
        s.opt_out_keywords ?? null,
        s.opt_in_keywords ?? null,
        s.opt_out_keywords !== undefined,
        s.opt_in_keywords !== undefined,
      ],
    );
    return settingsOf(row);
  }
}

function recordOf(r: LookupRow): RecordedConsent {
  return { purpose: r.purpose!, state: r.state!, source: r.source!, since: new Date(r.since!) };
}

/** Stored settings, with the defaults for what the business never set (null keyword lists). */
function settingsOf(row: SettingsRow | undefined): ConsentSettings {
  return {
    marketing_requires_opt_in: row?.marketing_requires_opt_in ?? false,
    opt_out_keywords: row?.opt_out_keywords ?? [...DEFAULT_OPT_OUT_KEYWORDS],
    opt_in_keywords: row?.opt_in_keywords ?? [...DEFAULT_OPT_IN_KEYWORDS],
  };
}
