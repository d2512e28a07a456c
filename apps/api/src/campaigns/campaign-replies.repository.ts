import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CampaignButtonReplies } from '@app/contracts';
import { sqlRows } from '@app/database';
import { BUTTON_KINDS } from './campaign-replies';

/** Buttons listed in the report at most (the most pressed). */
const MAX_BUTTONS = 50;

/** A campaign's replies as its report adds them up (docs/campaigns.md#replies), from the recipients' rows. */
@Injectable()
export class CampaignRepliesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Recipients who replied, and the replies by button (list row, flow) with their rate of the
   * `accepted` recipients (those whose message the send path accepted, as the report counts them).
   */
  async summary(
    id: string,
    accepted: number,
  ): Promise<{ replied: number; replies_by_button: CampaignButtonReplies[] }> {
    const [totals] = await sqlRows<{ replied: number }>(
      this.ds,
      `SELECT count(*)::int AS replied FROM campaign_recipients WHERE campaign_id = $1 AND replied_at IS NOT NULL`,
      [id],
    );
    if (!totals.replied) return { replied: 0, replies_by_button: [] };
    const buttons = await sqlRows<{ id: string; title: string | null; count: number }>(
      this.ds,
      `SELECT reply->>'id' AS id, min(reply->>'title') AS title, count(*)::int AS count
         FROM campaign_recipients
        WHERE campaign_id = $1 AND replied_at IS NOT NULL AND reply->>'kind' = ANY($2::text[]) AND reply->>'id' IS NOT NULL
        GROUP BY reply->>'id' ORDER BY count(*) DESC, reply->>'id' LIMIT $3`,
      [id, [...BUTTON_KINDS], MAX_BUTTONS],
    );
    return {
      replied: totals.replied,
      replies_by_button: buttons.map((b) => ({
        id: b.id,
        title: b.title,
        count: b.count,
        rate: accepted ? Math.round((b.count / accepted) * 10_000) / 10_000 : 0,
      })),
    };
  }
}
