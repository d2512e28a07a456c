import { IsIn, IsInt, IsObject, IsOptional, IsString, IsUrl, Max, MaxLength, Min, MinLength } from 'class-validator';
import { FaultSwitchDto } from '../faults/fault-switch.dto';
import type { CourseFaultMode } from './course-platforms';

export class CreateCoursePlatformDto {
  /** The key the gateway signs status events with (the course connection's api_key). */
  @IsString()
  @MinLength(8)
  @MaxLength(512)
  api_key!: string;
}

/** A process callback for the platform to send to the gateway. */
export class FireCourseEventDto {
  /** The course connection's inbound_url. */
  @IsString()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  url!: string;

  /**
   * The course connection's secret; sent in X-Course-Secret, or as the secret query parameter
   * (secret_in: query), which the gateway refuses (to show that it does).
   */
  @IsString()
  @MaxLength(512)
  secret!: string;

  @IsOptional()
  @IsIn(['header', 'query'])
  secret_in?: 'header' | 'query';

  /** json: a JSON body; form: form-encoded with nested objects as `user[phone]` keys. */
  @IsOptional()
  @IsIn(['json', 'form'])
  format?: 'json' | 'form';

  @IsObject()
  event!: Record<string, unknown>;
}

export class SetCourseFaultDto extends FaultSwitchDto {
  /** 500: answer HTTP 500; hang: no answer until the client gives up; slow: answer 200 after delay_ms. */
  @IsIn(['500', 'hang', 'slow'])
  mode!: CourseFaultMode;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(600_000)
  delay_ms?: number;
}
