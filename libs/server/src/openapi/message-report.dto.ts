import { ApiProperty } from '@nestjs/swagger';
import { MESSAGE_STATUSES, type MessageStatus } from '@app/contracts';

/** Why a message failed, in the api's message status and the gateway's delivery report alike. */
export class MessageFailureDto {
  @ApiProperty({ type: String, nullable: true, example: 'recipient_unreachable' })
  code: string | null;

  @ApiProperty({ type: String, nullable: true })
  reason: string | null;
}

/** One step of a message's timeline. */
export class MessageTimelineEntryDto {
  @ApiProperty({ enum: MESSAGE_STATUSES })
  status: MessageStatus;

  @ApiProperty({ example: 1763700000, description: 'Unix seconds' })
  timestamp: number;
}
