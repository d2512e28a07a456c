import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID } from 'class-validator';
import { CampaignSpendRow, USAGE_MAX_DAYS } from '@app/contracts';
import { IsCalendarDate } from '@app/server';
import { ApiNextCursor, CursorPageQueryDto } from '../../paging/cursor-page.dto';

/** `?from=&to=&campaign_id=&cursor=&limit=` of spend per campaign. */
export class CampaignSpendQueryDto extends CursorPageQueryDto {
  @ApiProperty({ example: '2026-11-01', description: 'First day of the period (from 00:00 UTC), YYYY-MM-DD' })
  @IsString({ message: 'from is required (YYYY-MM-DD)' })
  @IsCalendarDate()
  from: string;

  @ApiProperty({
    example: '2026-11-30',
    description: `Last day of the period, included (until 24:00 UTC), YYYY-MM-DD; not earlier than from; at most ${USAGE_MAX_DAYS} days, both ends counted`,
  })
  @IsString({ message: 'to is required (YYYY-MM-DD)' })
  @IsCalendarDate()
  to: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: "Only this campaign; an unknown campaign or another account's gives an empty page",
  })
  @IsOptional()
  @IsUUID('all', { message: 'campaign_id must be a campaign id (a UUID)' })
  campaign_id?: string;
}

/** The money charged for one campaign's messages in the period. */
export class CampaignSpendRowDto implements CampaignSpendRow {
  @ApiProperty({ format: 'uuid' })
  campaign_id: string;

  @ApiProperty({ example: 120, description: 'Messages charged in the period (free ones included, at 0)' })
  charged_messages: number;

  @ApiProperty({ example: 6, description: 'The money charged in the period, positive' })
  cost: number;

  @ApiProperty({ example: 'USD' })
  currency: string;
}

export class CampaignSpendPageDto {
  @ApiProperty({ type: [CampaignSpendRowDto] })
  data: CampaignSpendRowDto[];

  @ApiNextCursor()
  next_cursor: string | null;
}
