import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CampaignWindowsRequest, CampaignWindowsResult } from '@app/contracts';
import { sqlRows } from '@app/database';
import { Clock, ValidationProblem } from '@app/server';
import { SERVICE_WINDOW_MS } from '../conversations/conversations.service';
import { MessagesService } from '../sending';
import { CampaignsService } from './campaigns.service';

/** Most addresses one windows request asks about (the estimate's consent batch). */
export const WINDOWS_BATCH = 5_000;

/**
 * Whose WhatsApp 24-hour window is open now, for a content campaign's estimate
 * (docs/campaigns.md#content-campaigns): one read of the app's windows for a page of addresses,
 * by the rule a send applies (ConversationsService.isOpen).
 */
@Injectable()
export class CampaignWindows {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly campaigns: CampaignsService,
    private readonly sends: MessagesService,
    private readonly clock: Clock,
  ) {}

  async open(req: CampaignWindowsRequest): Promise<CampaignWindowsResult> {
    const to = req.to;
    if (!Array.isArray(to) || to.length > WINDOWS_BATCH || !to.every((a) => typeof a === 'string' && a.length <= 64)) {
      throw new ValidationProblem([{ field: 'to', message: `must be at most ${WINDOWS_BATCH} addresses` }]);
    }
    if (!Number.isInteger(req.template_app_id) || req.template_app_id < 1) {
      throw new ValidationProblem([{ field: 'template_app_id', message: 'must be an app id' }]);
    }
    const c = await this.campaigns.owned(req);
    const app = await this.sends.sendingApp(String(req.template_app_id), c.user_id);
    const since = new Date(this.clock.nowMs() - SERVICE_WINDOW_MS);
    const rows = await sqlRows<{ recipient: string }>(
      this.ds,
      `SELECT recipient FROM conversation_windows
        WHERE app_id = $1 AND recipient = ANY($2::text[]) AND last_inbound_at > $3`,
      [app.id, [...new Set(to)], since],
    );
    const open = new Set(rows.map((r) => r.recipient));
    return { open: to.map((a) => open.has(a)) };
  }
}
