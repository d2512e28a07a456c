import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CampaignDefinition, CampaignVariantResult } from '@app/contracts';
import { sqlRows } from '@app/database';

/**
 * How each variant of a campaign did (docs/campaigns.md#variants), added up in one read: each
 * recipient counted once by its message's status (the last attempt's over a failover route), its
 * reply, and the charges of all its attempts.
 */
@Injectable()
export class CampaignVariantsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** One result per variant of the definition, in its order (zeros for a variant nobody got yet). */
  async results(id: string, definition: CampaignDefinition): Promise<CampaignVariantResult[] | undefined> {
    const variants = definition.variants;
    if (!variants?.length) return undefined;
    const rows = await sqlRows<{
      variant: number;
      recipients: number;
      accepted: number;
      sent: number;
      delivered: number;
      read: number;
      failed: number;
      replied: number;
      cost: string;
    }>(
      this.ds,
      `WITH l AS (
         SELECT DISTINCT ON (a.parent_id) a.parent_id, lm.status
           FROM messages lm JOIN message_attempts a ON a.message_id = lm.id
          WHERE lm.campaign_id = $1
          ORDER BY a.parent_id, a.position DESC
       ), cost AS (
         SELECT coalesce(a.parent_id, x.id) AS parent_id, sum(x.charged) AS charged
           FROM messages x LEFT JOIN message_attempts a ON a.message_id = x.id
          WHERE x.campaign_id = $1
          GROUP BY 1
       )
       SELECT r.variant, count(*)::int AS recipients,
              (count(*) FILTER (WHERE r.state = 'queued'))::int AS accepted,
              (count(*) FILTER (WHERE s.status IN ('SENT', 'DELIVERED', 'READ')))::int AS sent,
              (count(*) FILTER (WHERE s.status IN ('DELIVERED', 'READ')))::int AS delivered,
              (count(*) FILTER (WHERE s.status = 'READ'))::int AS read,
              (count(*) FILTER (WHERE s.status = 'FAILED'))::int AS failed,
              (count(*) FILTER (WHERE r.replied_at IS NOT NULL))::int AS replied,
              coalesce(sum(cost.charged), 0) AS cost
         FROM campaign_recipients r
         LEFT JOIN messages m ON m.id = r.message_id AND m.campaign_id = $1
         LEFT JOIN l ON l.parent_id = r.message_id
         LEFT JOIN cost ON cost.parent_id = r.message_id
         CROSS JOIN LATERAL (SELECT CASE WHEN r.state = 'queued' THEN coalesce(l.status, m.status) END AS status) s
        WHERE r.campaign_id = $1 AND r.variant IS NOT NULL
        GROUP BY r.variant`,
      [id],
    );
    const byVariant = new Map(rows.map((r) => [r.variant, r]));
    return variants.map((v, i) => {
      const r = byVariant.get(i);
      return {
        name: v.name,
        template: v.template ?? null,
        share: v.share,
        recipients: r?.recipients ?? 0,
        accepted: r?.accepted ?? 0,
        sent: r?.sent ?? 0,
        delivered: r?.delivered ?? 0,
        read: r?.read ?? 0,
        failed: r?.failed ?? 0,
        cost: Number(r?.cost ?? 0),
        replied: r?.replied ?? 0,
      };
    });
  }
}
