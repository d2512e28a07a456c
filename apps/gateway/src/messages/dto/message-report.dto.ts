import {
  GATEWAY_SEND_CHANNELS,
  MESSAGE_CATEGORIES,
  MESSAGE_STATUSES,
  MessageAttempt,
  MessageCategory,
  MessageContact,
  MessageStatus,
  RENDERED_AS,
  RenderedAs,
} from '@app/contracts';
import { MessageChargeDto, MessageFailureDto, MessageTimelineEntryDto } from '@app/server';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { GatewayMessageReport } from '../gateway-messages.service';
import { ApiNextCursor } from '../../paging/cursor-page.dto';
import { ApiUnixSeconds } from '../../openapi/unix-seconds.decorator';

/** One attempt of a message sent over a failover route. */
export class MessageAttemptDto implements MessageAttempt {
  @ApiProperty({ enum: GATEWAY_SEND_CHANNELS })
  channel: string;

  @ApiProperty({ enum: MESSAGE_STATUSES })
  status: MessageStatus;

  @ApiProperty({ type: MessageFailureDto, nullable: true })
  failure: MessageFailureDto | null;

  @ApiUnixSeconds()
  created_at: number;

  @ApiUnixSeconds()
  updated_at: number;

  @ApiProperty({
    enum: RENDERED_AS,
    nullable: true,
    example: 'buttons',
    description:
      'A `content` send: what this channel was asked to send, the type or its declared fallback (a list drawn as buttons on MAX, a Flow as a link on Telegram; docs/gateway.md#content-kinds); null for a template send',
  })
  rendered_as: RenderedAs | null;
}

/** The contact a message was sent to. */
export class MessageContactDto implements MessageContact {
  @ApiProperty({ example: '019a8d6e-3b7c-7f11-9e2a-5b6c7d8e9f00' })
  id: string;

  @ApiProperty({ type: String, nullable: true, example: 'crm-42', description: 'Its external id, when it had one' })
  external_id: string | null;
}

/** The one delivery report of a message, whatever its channel: never its content. */
export class MessageReportDto extends MessageChargeDto implements GatewayMessageReport {
  @ApiProperty({ example: '019a8d6e-3b7c-7f11-9e2a-5b6c7d8e9f00' })
  id: string;

  @ApiProperty({
    enum: GATEWAY_SEND_CHANNELS,
    description: 'The channel it went on; over a failover route, the one that carried it (the last attempt)',
  })
  channel: string;

  @ApiProperty({ enum: MESSAGE_STATUSES })
  status: MessageStatus;

  @ApiProperty({ enum: MESSAGE_CATEGORIES })
  category: MessageCategory;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '7999*****22',
    description:
      "The recipient, masked the way its address kind on the channel says: a phone's first 4 and last 2 digits, a Telegram chat id's or @username's (a MAX user id's) first 3 and last 2 characters",
  })
  to: string | null;

  @ApiProperty({ example: 0 })
  price: number;

  @ApiProperty({ example: 'USD' })
  currency: string;

  @ApiUnixSeconds()
  created_at: number;

  @ApiUnixSeconds()
  updated_at: number;

  @ApiProperty({ type: MessageFailureDto, nullable: true })
  failure: MessageFailureDto | null;

  @ApiProperty({ type: [MessageTimelineEntryDto] })
  timeline: MessageTimelineEntryDto[];

  @ApiProperty({ description: "The message's tracking pixel: loading it marks the message READ (once)" })
  pixel_url: string;

  @ApiPropertyOptional({
    type: [MessageAttemptDto],
    description: 'A send to a contact over a failover route: every attempt, in order (docs/failover.md)',
  })
  attempts?: MessageAttemptDto[];

  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'The campaign it was sent for' })
  campaign_id: string | null;

  @ApiProperty({
    type: MessageContactDto,
    nullable: true,
    description: 'The contact it was sent to (a send with `contact`, a campaign); null for a send to an address',
  })
  contact: MessageContactDto | null;

  @ApiProperty({
    enum: RENDERED_AS,
    nullable: true,
    example: 'buttons',
    description:
      'A `content` send: what this channel was asked to send, the type or its declared fallback (a list drawn as buttons on MAX, a Flow as a link on Telegram; docs/gateway.md#content-kinds); null for a template send',
  })
  rendered_as: RenderedAs | null;
}

export class MessageReportPageDto {
  @ApiProperty({ type: [MessageReportDto] })
  data: MessageReportDto[];

  @ApiNextCursor()
  next_cursor: string | null;
}
