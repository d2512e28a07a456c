import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import { GATEWAY_SEND_CHANNELS, GatewaySendChannel, IsRegisteredChannel, sendsFromGateway } from '@app/contracts';
import { MAX_TEMPLATE_PARAMS } from '../../messages/dto/send-gateway-message.dto';
import { COURSE_EVENT_STATUSES, CourseEventStatus } from '../course.repository';
import { CursorPageQueryDto } from '../../paging/cursor-page.dto';

/** A dotted path into an event: `user.phone`, `deal.cost`, `items.0.title`. */
const DOTTED_PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+){0,15}$/;
const DOTTED_MESSAGE = 'must be a dotted path of field names such as user.phone';

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
