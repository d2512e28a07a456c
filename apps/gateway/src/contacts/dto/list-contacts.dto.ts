import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { GATEWAY_SEND_CHANNELS, GatewaySendChannel } from '@app/contracts';
import { CursorPageQueryDto } from '../../paging/cursor-page.dto';

/** `GET /v1/contacts`: the account's contacts in creation order, a page at a time. */
export class ListContactsDto extends CursorPageQueryDto {
  @ApiPropertyOptional({ description: 'Only contacts in this list' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  list?: string;

  @ApiPropertyOptional({ description: 'Only contacts whose name or external id contains this text (any case)' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  q?: string;

  @ApiPropertyOptional({ enum: GATEWAY_SEND_CHANNELS, description: 'Only contacts with an identity on this channel' })
  @IsOptional()
  @IsIn(GATEWAY_SEND_CHANNELS)
  channel?: GatewaySendChannel;
}
