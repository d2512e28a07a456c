import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { CampaignSettings, DEFAULT_CAMPAIGN_SETTINGS } from '@app/contracts';
import { sqlRows } from '@app/database';

interface SettingsRow {
  frequency_cap_messages: number | null;
  frequency_cap_hours: number | null;
  recent_template_days: number | null;
}

/** One marketing campaign message, as the frequency rules count it. */
export interface ContactSend {
  campaignId: string;
  seq: number;
  userId: string;
  contactId: string;
  template: string;
  sentAt: Date;
}

/** What the rules ask of a contact's past: its sends since `capSince`, and whether it had the template since `templateSince`. */
export interface ContactHistory {
  sends: number;
  hadTemplate: boolean;
}

/** The only place that queries campaign_settings and campaign_contact_sends. */
@Injectable()
export class FrequencyRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }

  async settings(userId: string, db: DataSource | EntityManager = this.ds): Promise<CampaignSettings> {
    const [row] = await sqlRows<SettingsRow>(
      db,
      `SELECT frequency_cap_messages, frequency_cap_hours, recent_template_days FROM campaign_settings WHERE user_id = $1`,
      [userId],
    );
    return settingsOf(row);
  }

  /** Sets the fields given (the others keep their value); answers the result. */
  async updateSettings(userId: string, s: Partial<CampaignSettings>): Promise<CampaignSettings> {
    const capGiven = s.frequency_cap !== undefined;
    const daysGiven = s.recent_template_days !== undefined;
    const [row] = await sqlRows<SettingsRow>(
      this.ds,
      `INSERT INTO campaign_settings AS s (user_id, frequency_cap_messages, frequency_cap_hours, recent_template_days)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (user_id) DO UPDATE SET
         frequency_cap_messages = CASE WHEN $5 THEN $2 ELSE s.frequency_cap_messages END,
         frequency_cap_hours = CASE WHEN $5 THEN $3 ELSE s.frequency_cap_hours END,
         recent_template_days = CASE WHEN $6 THEN $4 ELSE s.recent_template_days END,
         updated_at = now()
       RETURNING frequency_cap_messages, frequency_cap_hours, recent_template_days`,
      [
        userId,
        s.frequency_cap?.messages ?? null,
        s.frequency_cap?.period_hours ?? null,
        s.recent_template_days ?? null,
        capGiven,
        daysGiven,
      ],
    );
    return settingsOf(row);
  }

  /**
   * Holds the contact's frequency lock until the transaction ends: every marketing campaign send
   * to one contact, on any api replica, checks and records one after the other.
   */
  async lockContact(em: EntityManager, userId: string, contactId: string): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtextextended($1 || '|' || $2, 7741))`, [userId, contactId]);
  }

  /**
   * The history the rules ask of each contact, in order (a null `since` asks nothing): its sends
   * since then, and those reserved and not yet settled; `except` leaves out one recipient's own row.
   */
  async histories(
    userId: string,
    contactIds: string[],
    template: string,
    capSince: Date | null,
    templateSince: Date | null,
    db: DataSource | EntityManager = this.ds,
    except: { campaignId: string; seq: number } | null = null,
  ): Promise<ContactHistory[]> {
    const counted = `s.user_id = $1 AND s.contact_id = q.contact_id AND (NOT s.sent OR s.sent_at > $%)
                 AND (s.campaign_id, s.seq) IS DISTINCT FROM ($6::uuid, $7::int)`;
    const rows = await sqlRows<{ sends: number; had_template: boolean }>(
      db,
      `SELECT (CASE WHEN $3::timestamptz IS NULL THEN 0 ELSE
                (SELECT count(*) FROM campaign_contact_sends s WHERE ${counted.replace('%', '3')}) END)::int AS sends,
              ($5::timestamptz IS NOT NULL AND EXISTS (SELECT 1 FROM campaign_contact_sends s
                  WHERE s.template = $4 AND ${counted.replace('%', '5')})) AS had_template
         FROM unnest($2::text[]) WITH ORDINALITY AS q(contact_id, i)
        ORDER BY q.i`,
      [userId, contactIds, capSince, template, templateSince, except?.campaignId ?? null, except?.seq ?? null],
    );
    return rows.map((r) => ({ sends: Number(r.sends), hadTemplate: r.had_template }));
  }

  /** Reserves a recipient's place (its own earlier reservation is taken over); a sent one stays as it is. */
  async reserve(em: EntityManager, s: ContactSend): Promise<void> {
    await em.query(
      `INSERT INTO campaign_contact_sends (campaign_id, seq, user_id, contact_id, template, sent_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (campaign_id, seq) DO UPDATE SET sent_at = excluded.sent_at WHERE NOT campaign_contact_sends.sent`,
      [s.campaignId, s.seq, s.userId, s.contactId, s.template, s.sentAt],
    );
  }

  /** In the send's transaction: the reservation is a send, as of `at`. */
  async markSent(em: EntityManager, campaignId: string, seq: number, at: Date): Promise<void> {
    await em.query(`UPDATE campaign_contact_sends SET sent = true, sent_at = $3 WHERE campaign_id = $1 AND seq = $2`, [
      campaignId,
      seq,
      at,
    ]);
  }

  /** The send did not happen: its reservation goes (a sent row stays). */
  async release(campaignId: string, seq: number): Promise<void> {
    await this.ds.query(`DELETE FROM campaign_contact_sends WHERE campaign_id = $1 AND seq = $2 AND NOT sent`, [
      campaignId,
      seq,
    ]);
  }
}

function settingsOf(row: SettingsRow | undefined): CampaignSettings {
  if (!row) return { ...DEFAULT_CAMPAIGN_SETTINGS };
  return {
    frequency_cap:
      row.frequency_cap_messages !== null && row.frequency_cap_hours !== null
        ? { messages: row.frequency_cap_messages, period_hours: row.frequency_cap_hours }
        : null,
    recent_template_days: row.recent_template_days,
  };
}
