import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  GATEWAY_SEND_CHANNELS,
  MESSAGE_CATEGORIES,
  MESSAGE_STATUSES,
  MessageCategory,
  MessageStatus,
} from '@app/contracts';
import { CONNECTION_CHANNELS } from '../connections/connection.entity';
import { MessageChargeDto, MessageFailureDto, MessageTimelineEntryDto } from '@app/server';
import { ConnectionView } from '../connections/connections.service';
import { COURSE_EVENT_STATUSES } from '../course/course.repository';
import { CourseEventView, CourseRuleView } from '../course/course.service';
import { GatewayMessageReport } from '../messages/gateway-messages.service';

/**
 * The gateway's answers as its OpenAPI document shows them. The controllers return the services'
 * views; these classes only describe them, and implement the views so that the compiler checks
 * they show every field.
 */

export class ConnectionBotDto {
  @ApiProperty({ example: '7012345678' })
  id: string;

  @ApiProperty({ type: String, nullable: true, example: 'demo_shop_bot' })
  username: string | null;
}

export class ConnectionDto implements ConnectionView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: CONNECTION_CHANNELS })
  channel: string;

  @ApiProperty({ enum: ['active', 'failing', 'disconnected'] })
  state: string;

  @ApiPropertyOptional({ example: 12, description: 'whatsapp: the linked api app' })
  app_id?: number;

  @ApiPropertyOptional({ type: ConnectionBotDto, description: 'telegram, max: the bot' })
  bot?: ConnectionBotDto;

  @ApiPropertyOptional({
    description: 'A live bot or course connection: where the channel or the platform posts to the gateway',
  })
  inbound_url?: string;

  @ApiPropertyOptional({ description: 'course: where status events are posted (with events_path)' })
  base_url?: string;

  @ApiPropertyOptional({ example: '/messaging/events' })
  events_path?: string;

  @ApiPropertyOptional({ description: 'course: the secret the platform sends with its events; shown once, on create' })
  secret?: string;

  @ApiProperty({ description: 'Unix seconds' })
  created_at: number;

  @ApiProperty({ description: 'Unix seconds' })
  updated_at: number;
}

/** The one delivery report of a message, whatever its channel: never its content. */
export class MessageReportDto extends MessageChargeDto implements GatewayMessageReport {
  @ApiProperty({ example: '019a8d6e-3b7c-7f11-9e2a-5b6c7d8e9f00' })
  id: string;

  @ApiProperty({ enum: GATEWAY_SEND_CHANNELS })
  channel: string;

  @ApiProperty({ enum: MESSAGE_STATUSES })
  status: MessageStatus;

  @ApiProperty({ enum: MESSAGE_CATEGORIES })
  category: MessageCategory;

  @ApiProperty({ type: String, nullable: true, example: '4242**', description: 'The recipient, masked' })
  to: string | null;

  @ApiProperty({ example: 0 })
  price: number;

  @ApiProperty({ example: 'USD' })
  currency: string;

  @ApiProperty({ description: 'Unix seconds' })
  created_at: number;

  @ApiProperty({ description: 'Unix seconds' })
  updated_at: number;

  @ApiProperty({ type: MessageFailureDto, nullable: true })
  failure: MessageFailureDto | null;

  @ApiProperty({ type: [MessageTimelineEntryDto] })
  timeline: MessageTimelineEntryDto[];

  @ApiProperty({ description: "The message's tracking pixel: loading it marks the message READ (once)" })
  pixel_url: string;
}

export class MessageReportPageDto {
  @ApiProperty({ type: [MessageReportDto] })
  data: MessageReportDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last' })
  next_cursor: string | null;
}

export class CourseRuleDto implements CourseRuleView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  connection_id: string;

  @ApiProperty({ example: 'payment' })
  event_type: string;

  @ApiProperty({ enum: GATEWAY_SEND_CHANNELS })
  channel: string;

  @ApiProperty({ example: 'payment_received' })
  template: string;

  @ApiProperty({ type: String, nullable: true, example: 'en' })
  language: string | null;

  @ApiProperty({ example: 'user.phone' })
  recipient_field: string;

  @ApiProperty({ type: [String], example: ['user.first_name'] })
  params: string[];

  @ApiProperty({ description: 'Unix seconds' })
  created_at: number;
}

/** A course event as its account sees it: what happened to it, never the event's body. */
export class CourseEventDto implements CourseEventView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  connection_id: string;

  @ApiProperty({ description: "The platform's id of the event" })
  event_id: string;

  @ApiProperty({ type: String, nullable: true, example: 'payment' })
  type: string | null;

  @ApiProperty({ enum: COURSE_EVENT_STATUSES })
  status: string;

  @ApiProperty({ type: String, nullable: true })
  reason: string | null;

  @ApiProperty({ type: [String] })
  message_ids: string[];

  @ApiProperty({ description: 'Unix seconds' })
  received_at: number;

  @ApiProperty({ type: Number, nullable: true, description: 'Unix seconds' })
  processed_at: number | null;
}

export class CourseEventPageDto {
  @ApiProperty({ type: [CourseEventDto] })
  data: CourseEventDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last' })
  next_cursor: string | null;
}
