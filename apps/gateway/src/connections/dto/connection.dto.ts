import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CHANNELS } from '@app/contracts';
import { ConnectionView } from '../connections.service';
import { ApiUnixSeconds } from '../../openapi/unix-seconds.decorator';

export class ConnectionBotDto {
  @ApiProperty({ example: '7012345678' })
  id: string;

  @ApiProperty({ type: String, nullable: true, example: 'demo_shop_bot' })
  username: string | null;
}

export class ConnectionDto implements ConnectionView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: CHANNELS })
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

  @ApiUnixSeconds()
  created_at: number;

  @ApiUnixSeconds()
  updated_at: number;
}
