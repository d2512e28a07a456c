import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { GATEWAY_SEND_CHANNELS, GatewaySendChannel, IsRegisteredChannel, sendsFromGateway } from '@app/contracts';
import { MAX_TEMPLATE_PARAMS } from '../../messages/dto/send-gateway-message.dto';
import { COURSE_EVENT_STATUSES, CourseEventStatus } from '../course.repository';
import { CursorPageQueryDto } from '../../paging/cursor-page.dto';

/** A dotted path into an event: `user.phone`, `deal.cost`, `items.0.title`. */
const DOTTED_PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+){0,15}$/;
const DOTTED_MESSAGE = 'must be a dotted path of field names such as user.phone';

/** The longest a rule waits for the student's reply: the course records' retention (7 days). */
export const MAX_WAIT_FOR_REPLY_SECONDS = 7 * 24 * 3600;

/** A rule's wait for the student's reply to its message (docs/course.md, Waiting for the reply). */
export class WaitForReplyDto {
  @ApiProperty({
    minimum: 1,
    maximum: MAX_WAIT_FOR_REPLY_SECONDS,
    example: 86400,
    description: 'How long after the send a reply counts; then `no_reply` is posted',
  })
  @IsInt({ message: 'timeout_seconds must be a whole number of seconds' })
  @Min(1)
  @Max(MAX_WAIT_FOR_REPLY_SECONDS)
  timeout_seconds: number;
}

/** `POST /v1/course/rules`: which template to send, to whom, on which channel, when an event of a type comes. */
export class CreateCourseRuleDto {
  @ApiProperty({ description: "One of the account's course connections" })
  @IsUUID('all', { message: 'connection_id must be the id of a course connection' })
  connection_id: string;

  @ApiProperty({ example: 'payment', description: 'The event type (its `type` or `event` field)' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  event_type: string;

  @ApiProperty({ enum: GATEWAY_SEND_CHANNELS })
  @IsRegisteredChannel(sendsFromGateway)
  channel: GatewaySendChannel;

  @ApiProperty({ example: 'payment_received' })
  @IsString()
  @Matches(/^[a-z0-9_]{1,512}$/, { message: 'template must be a template name (lowercase letters, digits, _)' })
  template: string;

  @ApiPropertyOptional({ example: 'en' })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z]{2,3}(_[A-Z]{2})?$/, { message: 'language must be a language code such as en or pt_BR' })
  language?: string;

  @ApiProperty({ example: 'user.phone', description: 'The field holding the recipient (phone, chat id)' })
  @IsString()
  @Matches(DOTTED_PATH, { message: `recipient_field ${DOTTED_MESSAGE}` })
  recipient_field: string;

  @ApiPropertyOptional({
    type: [String],
    example: ['user.first_name', 'deal.cost'],
    description: 'The fields feeding the template values, in order',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_TEMPLATE_PARAMS)
  @IsString({ each: true })
  @Matches(DOTTED_PATH, { each: true, message: `each of params ${DOTTED_MESSAGE}` })
  params?: string[];

  @ApiPropertyOptional({
    type: WaitForReplyDto,
    description:
      "Post the student's next message back to the platform (`message.replied`), or `message.no_reply` at the timeout",
  })
  @IsOptional()
  @IsObject({ message: 'wait_for_reply must be an object such as {"timeout_seconds": 86400}' })
  @ValidateNested()
  @Type(() => WaitForReplyDto)
  wait_for_reply?: WaitForReplyDto;
}

/** `GET /v1/course/events`: the account's course events, newest first, a page at a time. */
export class ListCourseEventsDto extends CursorPageQueryDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsUUID('all', { message: 'connection_id must be a connection id' })
  connection_id?: string;

  @ApiPropertyOptional({ enum: COURSE_EVENT_STATUSES })
  @IsOptional()
  @IsIn(COURSE_EVENT_STATUSES)
  status?: CourseEventStatus;
}
