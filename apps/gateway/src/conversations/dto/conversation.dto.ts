import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CONVERSATION_STATUSES, GATEWAY_SEND_CHANNELS, MESSAGE_STATUSES } from '@app/contracts';
import { ApiNextCursor } from '../../paging/cursor-page.dto';
import { ApiUnixSeconds } from '../../openapi/unix-seconds.decorator';

/** What a conversation message holds: its kind and text, and the kind's fields (media, location, ...). */
export class ConversationContentDto {
  @ApiProperty({
    example: 'text',
    description:
      "An inbound kind (text, image, ...); a send's content type (text, image, buttons, ...), template, or message (a send whose content the gateway did not see: a failover attempt, a campaign's)",
  })
  type: string;

  @ApiProperty({ type: String, nullable: true, description: "The text, caption or a reply's title" })
  text: string | null;

  @ApiPropertyOptional({
    description: 'A template send: the template as named, `{name, language, params, media_url}`',
    type: 'object',
    additionalProperties: true,
  })
  template?: { name: string; language: string | null; params: string[]; media_url?: string };

  @ApiPropertyOptional({ description: "A content send: what the channel was asked to send (the send's rendered_as)" })
  rendered_as?: string;
}

/** The file of an inbound message (docs/conversations.md#media): fetched from the channel into the media store. */
export class ConversationMessageMediaDto {
  @ApiProperty({
    enum: ['stored', 'pending', 'too_large', 'failed'],
    description: "stored: download it at url; pending: being fetched; too_large: past the channel's cap, not kept",
  })
  status: 'stored' | 'pending' | 'too_large' | 'failed';

  @ApiProperty({ type: String, nullable: true, description: 'An expiring signed link to the file, while stored' })
  url: string | null;

  @ApiUnixSeconds({ nullable: true, description: 'when url stops working (read the message again for a new one)' })
  expires_at: number | null;

  @ApiProperty({ type: String, nullable: true })
  mime_type: string | null;

  @ApiProperty({ type: Number, nullable: true, description: 'bytes' })
  size: number | null;

  @ApiProperty({ type: String, nullable: true })
  file_name: string | null;
}

/** A message of a conversation, in or out. */
export class ConversationMessageDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: ['in', 'out'], description: 'in: the customer wrote it; out: the account sent it' })
  direction: 'in' | 'out';

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Our message id (GET /v1/messages/{id}), for outbound messages',
  })
  message_id: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The channel's id of the message" })
  provider_message_id: string | null;

  @ApiProperty({
    enum: ['RECEIVED', ...MESSAGE_STATUSES],
    description: 'RECEIVED for inbound; the delivery status for outbound',
  })
  status: string;

  @ApiProperty({ type: ConversationContentDto })
  content: ConversationContentDto;

  @ApiPropertyOptional({ type: ConversationMessageMediaDto, description: 'Inbound messages with a file only' })
  media?: ConversationMessageMediaDto;

  @ApiUnixSeconds({ description: 'when the channel says the message was written or sent' })
  timestamp: number;
}

/** The WhatsApp customer-service window: a free-form reply is accepted exactly while it is open. */
export class ConversationWindowDto {
  @ApiProperty()
  open: boolean;

  @ApiUnixSeconds({
    nullable: true,
    description: '24 hours after the last message the customer wrote; null before any',
  })
  expires_at: number | null;
}

export class ConversationContactDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ type: String, nullable: true })
  name: string | null;

  @ApiProperty({ example: '79990001122', description: "The customer's address on the channel, where replies go" })
  address: string;
}

/** A conversation: one contact on one connection of the account. */
export class ConversationDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ type: ConversationContactDto })
  contact: ConversationContactDto;

  @ApiProperty({ enum: GATEWAY_SEND_CHANNELS })
  channel: string;

  @ApiProperty({ format: 'uuid', description: 'The connection the conversation is on' })
  connection_id: string;

  @ApiProperty({ enum: CONVERSATION_STATUSES })
  status: string;

  @ApiProperty({ type: String, nullable: true })
  assignee: string | null;

  @ApiProperty({ type: [String] })
  labels: string[];

  @ApiProperty({ description: 'Messages the customer wrote since the conversation was last read' })
  unread_count: number;

  @ApiProperty({ type: ConversationMessageDto, nullable: true })
  last_message: ConversationMessageDto | null;

  @ApiUnixSeconds({ nullable: true })
  last_message_at: number | null;

  @ApiPropertyOptional({
    type: ConversationWindowDto,
    nullable: true,
    description: "WhatsApp only: as the send check decides it; null while the api's windows cannot be read",
  })
  window?: ConversationWindowDto | null;

  @ApiProperty({ description: 'Changes with every PATCH; GET answers it as the ETag' })
  version: number;

  @ApiUnixSeconds()
  created_at: number;

  @ApiUnixSeconds()
  updated_at: number;
}

export class ConversationPageDto {
  @ApiProperty({ type: [ConversationDto] })
  data: ConversationDto[];

  @ApiNextCursor()
  next_cursor: string | null;
}

export class ConversationMessagePageDto {
  @ApiProperty({ type: [ConversationMessageDto], description: 'In channel order, oldest first' })
  data: ConversationMessageDto[];

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'More in the direction paged: pass as before (a first page or a before page) or after (an after page); null at the end',
  })
  next_cursor: string | null;
}

/** The answer to a reply: the message, queued. */
export class ConversationReplyResponseDto {
  @ApiProperty({ format: 'uuid', description: 'Our message id (GET /v1/messages/{id})' })
  id: string;

  @ApiProperty({ example: 'QUEUED' })
  status: string;

  @ApiProperty({ format: 'uuid' })
  conversation_id: string;
}
