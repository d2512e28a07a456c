import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { ApiUnixSeconds } from '../openapi/unix-seconds.decorator';

/** The longest content retention an account may set, in days (about ten years). */
export const MAX_CONTENT_RETENTION_DAYS = 3650;
/** The content retention of an account that never set one, in days. */
export const DEFAULT_CONTENT_RETENTION_DAYS = 7;

/** `PATCH /v1/conversations/settings`: how long the content of conversation messages is kept. */
export class UpdateConversationSettingsDto {
  @ApiProperty({
    minimum: 0,
    maximum: MAX_CONTENT_RETENTION_DAYS,
    example: DEFAULT_CONTENT_RETENTION_DAYS,
    description:
      'Days the content of conversation messages (text, captions, media, form answers) is kept; 0 keeps metadata only',
  })
  @IsInt({ message: 'content_retention must be a whole number of days' })
  @Min(0, { message: 'content_retention must be 0 or more days' })
  @Max(MAX_CONTENT_RETENTION_DAYS, {
    message: `content_retention must be at most ${MAX_CONTENT_RETENTION_DAYS} days`,
  })
  content_retention: number;
}

/** The account's conversation settings (docs/conversations.md, Content retention). */
export class ConversationSettingsDto {
  @ApiProperty({ example: DEFAULT_CONTENT_RETENTION_DAYS, description: 'Days content is kept; 0: metadata only' })
  content_retention: number;

  @ApiUnixSeconds({ nullable: true, description: 'When the setting was last changed; null: never (the default)' })
  updated_at: number | null;
}
