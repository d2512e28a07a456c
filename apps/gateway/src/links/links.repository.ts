import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { sqlRows } from '@app/database';

/** A tracked link as stored: its token, the campaign's recipient and the URL it redirects to. */
export interface TrackedLinkRow {
  token: string;
  account_id: string;
  campaign_id: string;
  seq: number;
  contact_id: string;
  variant: number | null;
  url: string;
}

/** The only place that queries tracked_links and link_clicks (docs/campaigns.md#tracked-links). */
@Injectable()
export class LinksRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The links of one load page, in one statement. */
  async insert(rows: TrackedLinkRow[]): Promise<void> {
    if (!rows.length) return;
    const col = <T>(f: (r: TrackedLinkRow) => T) => rows.map(f);
    await this.ds.query(
      `INSERT INTO tracked_links (token, account_id, campaign_id, seq, contact_id, variant, url)
       SELECT * FROM unnest($1::text[], $2::uuid[], $3::uuid[], $4::integer[], $5::text[], $6::smallint[], $7::text[])`,
      [
        col((r) => r.token),
        col((r) => r.account_id),
        col((r) => r.campaign_id),
        col((r) => r.seq),
        col((r) => r.contact_id),
        col((r) => r.variant),
        col((r) => r.url),
      ],
    );
  }

  /** What an interrupted launch left: its links are made again with the recipients. */
  async deleteCampaign(campaignId: string): Promise<void> {
    await this.ds.query(`DELETE FROM tracked_links WHERE campaign_id = $1`, [campaignId]);
  }

  async find(token: string): Promise<TrackedLinkRow | null> {
    const [row] = await sqlRows<TrackedLinkRow>(
      this.ds,
      `SELECT token, account_id, campaign_id, seq, contact_id, variant, url FROM tracked_links WHERE token = $1`,
      [token],
    );
    return row ?? null;
  }

  async hasClicked(campaignId: string, seq: number): Promise<boolean> {
    const rows = await sqlRows(this.ds, `SELECT 1 FROM link_clicks WHERE campaign_id = $1 AND seq = $2`, [
      campaignId,
      seq,
    ]);
    return rows.length > 0;
  }

  /** The recipient's first click; a later one changes nothing. */
  async recordClick(link: TrackedLinkRow, messageId: string, at: Date): Promise<void> {
    await this.ds.query(
      `INSERT INTO link_clicks (campaign_id, seq, account_id, contact_id, variant, message_id, clicked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (campaign_id, seq) DO NOTHING`,
      [link.campaign_id, link.seq, link.account_id, link.contact_id, link.variant, messageId, at.toISOString()],
    );
  }

  /** Which of these contacts clicked a link of the account's campaign (in the last `days` days when given). */
  async clickedContacts(
    accountId: string,
    campaignId: string,
    contactIds: string[],
    days: number | null,
  ): Promise<string[]> {
    const rows = await sqlRows<{ contact_id: string }>(
      this.ds,
      `SELECT DISTINCT contact_id FROM link_clicks
        WHERE account_id = $1 AND campaign_id = $2 AND contact_id = ANY($3::text[])
          AND ($4::integer IS NULL OR clicked_at >= now() - make_interval(days => $4::integer))`,
      [accountId, campaignId, contactIds, days],
    );
    return rows.map((r) => r.contact_id);
  }

  /** Recipients of the account's campaign who clicked, in all and per variant. */
  async clicks(accountId: string, campaignId: string): Promise<{ total: number; perVariant: Map<number, number> }> {
    const rows = await sqlRows<{ variant: number | null; n: number }>(
      this.ds,
      `SELECT variant, count(*)::int AS n FROM link_clicks WHERE campaign_id = $1 AND account_id = $2 GROUP BY variant`,
      [campaignId, accountId],
    );
    const perVariant = new Map<number, number>();
    let total = 0;
    for (const r of rows) {
      total += r.n;
      if (r.variant !== null) perVariant.set(r.variant, r.n);
    }
    return { total, perVariant };
  }
}
