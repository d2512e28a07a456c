import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  CAMPAIGNS_RPC,
  CampaignEngagementRequest,
  CampaignEngagementResult,
  ENGAGEMENT_LIMITS,
  RpcReply,
} from '@app/contracts';
import { sqlRows } from '@app/database';
import { rpcAnswer } from '@app/messaging';
import { FieldError, NotFoundProblem, rpcProblemOf, ValidationProblem } from '@app/server';

/** Contact ids one request may ask about (the gateway asks a page of its audience at a time). */
export const ENGAGEMENT_CONTACTS_MAX = 5_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Statuses of a recipient's message (the last attempt's) that count for each engagement. */
const STATUSES = { received: ['DELIVERED', 'READ'], read: ['READ'] } as const;

/**
 * An audience's engagement filter (docs/campaigns.md#engagement-filters): which of a page of the
 * account's contacts received (delivered or read), read or replied to the message another campaign
 * of the same account sent them, in the last N days. Another account's campaign is unknown (404): its
 * recipients are never read.
 */
@Controller()
export class CampaignEngagementRpcController {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  @MessagePattern(CAMPAIGNS_RPC.engagement)
  engagement(@Payload() req: CampaignEngagementRequest): Promise<RpcReply<CampaignEngagementResult>> {
    return rpcAnswer(() => this.engaged(req), rpcProblemOf);
  }

  private async engaged(req: CampaignEngagementRequest): Promise<CampaignEngagementResult> {
    const errors: FieldError[] = [];
    if (typeof req?.account_id !== 'string' || !UUID.test(req.account_id))
      errors.push({ field: 'account_id', message: 'must be an account id' });
    if (req?.did !== 'received' && req?.did !== 'read' && req?.did !== 'replied')
      errors.push({ field: 'did', message: 'must be received, read or replied' });
    const days = req?.within_days ?? null;
    if (days !== null && !(Number.isInteger(days) && days >= 1 && days <= ENGAGEMENT_LIMITS.maxDays))
      errors.push({ field: 'within_days', message: `must be 1 to ${ENGAGEMENT_LIMITS.maxDays}` });
    const ids = req?.contact_ids;
    if (
      !Array.isArray(ids) ||
      ids.length > ENGAGEMENT_CONTACTS_MAX ||
      !ids.every((id) => typeof id === 'string' && id.length <= 200)
    )
      errors.push({ field: 'contact_ids', message: `must be at most ${ENGAGEMENT_CONTACTS_MAX} contact ids` });
    if (errors.length) throw new ValidationProblem(errors);
    const notFound = new NotFoundProblem('campaign named in audience.filter.engagement');
    if (typeof req.campaign_id !== 'string' || !UUID.test(req.campaign_id)) throw notFound;
    const [owned] = await sqlRows<{ id: string }>(
      this.ds,
      `SELECT id FROM campaigns WHERE id = $1 AND account_id = $2`,
      [req.campaign_id, req.account_id],
    );
    if (!owned) throw notFound;
    if (!ids.length) return { contact_ids: [] };
    if (req.did === 'replied') return { contact_ids: await this.replied(req.campaign_id, ids, days) };
    const rows = await sqlRows<{ contact_id: string }>(
      this.ds,
      `SELECT DISTINCT r.contact_id
         FROM campaign_recipients r
         JOIN messages m ON m.id = r.message_id
         LEFT JOIN LATERAL (
           SELECT lm.status FROM message_attempts a JOIN messages lm ON lm.id = a.message_id
            WHERE a.parent_id = r.message_id ORDER BY a.position DESC LIMIT 1) l ON true
        WHERE r.campaign_id = $1 AND r.state = 'queued' AND r.contact_id = ANY($2::text[])
          AND ($3::integer IS NULL OR r.queued_at >= now() - make_interval(days => $3::integer))
          AND coalesce(l.status, m.status) = ANY($4::text[])`,
      [req.campaign_id, ids, days, [...STATUSES[req.did]]],
    );
    return { contact_ids: rows.map((r) => r.contact_id) };
  }

  /** Contacts who replied to the campaign's message (docs/campaigns.md#replies), in the last N days. */
  private async replied(campaignId: string, ids: string[], days: number | null): Promise<string[]> {
    const rows = await sqlRows<{ contact_id: string }>(
      this.ds,
      `SELECT DISTINCT contact_id FROM campaign_recipients
        WHERE campaign_id = $1 AND replied_at IS NOT NULL AND contact_id = ANY($2::text[])
          AND ($3::integer IS NULL OR replied_at >= now() - make_interval(days => $3::integer))`,
      [campaignId, ids, days],
    );
    return rows.map((r) => r.contact_id);
  }
}
