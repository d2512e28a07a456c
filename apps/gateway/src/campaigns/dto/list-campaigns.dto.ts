import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import {
  CAMPAIGN_RECIPIENT_STATUSES,
  CAMPAIGN_STATES,
  CampaignRecipientStatus,
  CampaignState,
  GATEWAY_SEND_CHANNELS,
  IsRegisteredChannel,
  sendsFromGateway,
  GatewaySendChannel,
} from '@app/contracts';
import { CursorPageQueryDto } from '../../paging/cursor-page.dto';

/** `GET /v1/campaigns`: the account's campaigns, newest first, a page at a time. */
export class ListCampaignsDto extends CursorPageQueryDto {
  @ApiPropertyOptional({ enum: CAMPAIGN_STATES })
  @IsOptional()
  @IsIn(CAMPAIGN_STATES)
  state?: CampaignState;
}

/** `GET /v1/campaigns/{id}/recipients`: the report in audience order, a page at a time. */
export class ListCampaignRecipientsDto {
  @ApiPropertyOptional({ enum: CAMPAIGN_RECIPIENT_STATUSES })
  @IsOptional()
  @IsIn(CAMPAIGN_RECIPIENT_STATUSES)
  status?: CampaignRecipientStatus;

  @ApiPropertyOptional({ enum: GATEWAY_SEND_CHANNELS, description: 'The channel that carried the message' })
  @IsOptional()
  @IsRegisteredChannel(sendsFromGateway)
  channel?: GatewaySendChannel;

  @ApiPropertyOptional({ description: 'The next_after of the previous page' })
  @IsOptional()
  @Matches(/^(0|[1-9][0-9]{0,8})$/, { message: 'after must be the next_after of a previous page' })
  after?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @Matches(/^(1000|[1-9][0-9]{0,2})$/, { message: 'limit must be a whole number from 1 to 1000' })
  limit?: string;
}
