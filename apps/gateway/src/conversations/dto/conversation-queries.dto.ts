import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { CONVERSATION_STATUSES, ConversationStatus, GATEWAY_SEND_CHANNELS, GatewaySendChannel } from '@app/contracts';

const LIMIT = /^(100|[1-9][0-9]?)$/;
const LIMIT_MESSAGE = 'limit must be a whole number from 1 to 100';
const MESSAGE_CURSOR = /^[0-9a-f-]{36}$/;

/** `GET /v1/conversations`: the account's conversations, the latest updated first, a page at a time. */
export class ListConversationsDto {
  @ApiPropertyOptional({ description: 'The next_cursor of the previous page' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{10,120}$/, { message: 'cursor must be the next_cursor of a previous page' })
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @Matches(LIMIT, { message: LIMIT_MESSAGE })
  limit?: string;

  @ApiPropertyOptional({ enum: CONVERSATION_STATUSES })
  @IsOptional()
  @IsIn(CONVERSATION_STATUSES)
  status?: ConversationStatus;

  @ApiPropertyOptional({ description: 'Only conversations assigned to this agent or bot id' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  assignee?: string;

  @ApiPropertyOptional({ enum: GATEWAY_SEND_CHANNELS })
  @IsOptional()
  @IsIn(GATEWAY_SEND_CHANNELS)
  channel?: GatewaySendChannel;

  @ApiPropertyOptional({ description: 'Only conversations with this label' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  label?: string;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: 'true: only those with unread messages; false: only read ones',
  })
  @IsOptional()
  @IsIn(['true', 'false'])
  unread?: 'true' | 'false';

  @ApiPropertyOptional({ type: 'integer', description: 'Unix seconds: only conversations updated at or after it' })
  @IsOptional()
  @Matches(/^[0-9]{1,11}$/, { message: 'updated_since must be Unix seconds' })
  updated_since?: string;
}

/** `GET /v1/conversations/{id}/messages`: in channel order, the latest page or one before or after a message. */
export class ListConversationMessagesDto {
  @ApiPropertyOptional({ description: 'A message id: the page of messages just before it (older)' })
  @IsOptional()
  @IsString()
  @Matches(MESSAGE_CURSOR, { message: 'before must be a message id of the conversation' })
  before?: string;

  @ApiPropertyOptional({ description: 'A message id: the page of messages just after it (newer)' })
  @IsOptional()
  @IsString()
  @Matches(MESSAGE_CURSOR, { message: 'after must be a message id of the conversation' })
  after?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @Matches(LIMIT, { message: LIMIT_MESSAGE })
  limit?: string;
}
