import { ApiProperty } from '@nestjs/swagger';
import { COURSE_EVENT_STATUSES } from '../course.repository';
import { CourseEventView } from '../course.service';
import { ApiNextCursor } from '../../paging/cursor-page.dto';
import { ApiUnixSeconds } from '../../openapi/unix-seconds.decorator';

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

  @ApiUnixSeconds()
  received_at: number;

  @ApiUnixSeconds({ nullable: true })
  processed_at: number | null;
}

export class CourseEventPageDto {
  @ApiProperty({ type: [CourseEventDto] })
  data: CourseEventDto[];

  @ApiNextCursor()
  next_cursor: string | null;
}
