import { GATEWAY_SEND_CHANNELS } from '@app/contracts';
import { ApiProperty } from '@nestjs/swagger';
import { WaitForReplyDto } from './course.dto';
import { CourseRuleView } from '../course.service';
import { ApiUnixSeconds } from '../../openapi/unix-seconds.decorator';

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

  @ApiProperty({ type: WaitForReplyDto, nullable: true, description: "The wait for the student's reply; null: none" })
  wait_for_reply: WaitForReplyDto | null;

  @ApiUnixSeconds()
  created_at: number;
}
