import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { ApiUnixSeconds } from '../../openapi/unix-seconds.decorator';

/** Keyword triggers a course connection may have. */
export const MAX_KEYWORD_TRIGGERS = 50;

/** A keyword a student writes (or a button they press) that starts a course event. */
export class KeywordTriggerDto {
  @ApiProperty({ example: 'START', description: 'Matched against the whole message, ignoring case and spaces' })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  keyword: string;

  @ApiProperty({ example: 'course_start', description: 'The event type posted to the platform' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  event: string;
}

/** `PUT /v1/course/connections/{id}/triggers`: what inbound messages start a course event on the platform. */
export class CourseTriggersBodyDto {
  @ApiPropertyOptional({ type: [KeywordTriggerDto], maxItems: MAX_KEYWORD_TRIGGERS })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_KEYWORD_TRIGGERS)
  @ValidateNested({ each: true })
  @Type(() => KeywordTriggerDto)
  keyword_triggers?: KeywordTriggerDto[];

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'student_message',
    description: 'The event type any other message starts; null: none',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  on_message?: string | null;
}

/** A course connection's triggers. */
export class CourseTriggersDto {
  @ApiProperty({ format: 'uuid' })
  connection_id: string;

  @ApiProperty({ type: [KeywordTriggerDto] })
  keyword_triggers: KeywordTriggerDto[];

  @ApiProperty({ type: String, nullable: true })
  on_message: string | null;

  @ApiUnixSeconds({ nullable: true, description: 'When they were last set; null: never' })
  updated_at: number | null;
}
