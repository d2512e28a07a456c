import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { BaseConfig } from '@app/config';

export class QueueConfig extends BaseConfig {
  @IsInt()
  @Min(1)
  @Max(65535)
  QUEUE_PORT: number = 3200;

  /** Channels this replica delivers to (one Deployment per channel in production). */
  @IsString()
  @Matches(/^(whatsapp|telegram|max|course)(,(whatsapp|telegram|max|course))*$/, {
    message: 'CHANNELS must be a comma-separated list of whatsapp, telegram, max, course',
  })
  CHANNELS: string = 'whatsapp,telegram,max,course';

  get channelList(): string[] {
    return this.CHANNELS.split(',');
  }
}
