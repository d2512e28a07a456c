import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { CONVERSATION_STATUSES, ConversationStatus, SEND_CONTENT_TYPES, SendContentType } from '@app/contracts';
import { SendContentDto } from '../../messages/dto/send-gateway-message.dto';

/** Most labels a conversation has. */
export const MAX_LABELS = 20;

/** `PATCH /v1/conversations/{id}`: any of assignee, status, labels; the others stay. */
export class UpdateConversationDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'agent-17',
    description: 'An opaque agent or bot id; null unassigns',
  })
  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  assignee?: string | null;

  @ApiPropertyOptional({ enum: CONVERSATION_STATUSES })
  @IsOptional()
  @IsIn(CONVERSATION_STATUSES)
  status?: ConversationStatus;

  @ApiPropertyOptional({
    type: [String],
    example: ['vip'],
    description: `The labels, replacing the old ones (at most ${MAX_LABELS})`,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_LABELS)
  @ArrayUnique()
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(64, { each: true })
  @Matches(/^\S(.*\S)?$/, { each: true, message: 'labels must not start or end with spaces' })
  labels?: string[];
}

/**
 * `POST /v1/conversations/{id}/messages`: a reply, as a send's `content` (text, or media by URL)
 * whose `type` may be left out for text: `{"text": "..."}`.
 */
export class ConversationReplyDto extends SendContentDto {
  @ApiPropertyOptional({ enum: SEND_CONTENT_TYPES, default: 'text' })
  @IsIn(SEND_CONTENT_TYPES)
  override type: SendContentType = 'text';
}
