import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { CHANNELS, connectsWithBot, IsRegisteredChannel, isRegisteredChannel } from '@app/contracts';
import { ConnectionChannel } from '../connection.entity';

/** `POST /v1/connections`: a WhatsApp app to link, a bot token to connect, or a course platform. */
export class CreateConnectionDto {
  @ApiProperty({ enum: CHANNELS })
  @IsRegisteredChannel()
  channel: ConnectionChannel;

  /** whatsapp: one of the account's user's ACTIVE apps. */
  @ApiPropertyOptional({ example: 12 })
  @ValidateIf((o: CreateConnectionDto) => o.channel === 'whatsapp')
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  app_id?: number;

  /** telegram, max (each channel that connects with a bot): the bot's token, checked with the channel; never returned. */
  @ApiPropertyOptional({ writeOnly: true })
  @ValidateIf((o: CreateConnectionDto) => isRegisteredChannel(o.channel, connectsWithBot))
  @IsString()
  @MaxLength(256)
  @Matches(/^[A-Za-z0-9:_-]{8,256}$/, {
    message: 'bot_token must be the token the channel issued (letters, digits, ":", "_", "-")',
  })
  bot_token?: string;

  /** course: the platform's root URL; status events go to base_url + events_path. */
  @ApiPropertyOptional({ example: 'https://school.example.com' })
  @ValidateIf((o: CreateConnectionDto) => o.channel === 'course')
  @IsString()
  @MaxLength(2048)
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: 'base_url must be an http(s) URL' },
  )
  base_url?: string;

  /** course: the key status events are signed with (HMAC-SHA256); stored sealed, never returned. */
  @ApiPropertyOptional({ writeOnly: true })
  @ValidateIf((o: CreateConnectionDto) => o.channel === 'course')
  @IsString()
  @MinLength(8)
  @MaxLength(512)
  api_key?: string;

  /** course: the path status events are posted to, under base_url (default /messaging/events). */
  @ApiPropertyOptional({ example: '/messaging/events' })
  @IsOptional()
  @ValidateIf((o: CreateConnectionDto) => o.channel === 'course')
  @IsString()
  @Matches(/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]{0,511}$/, {
    message: 'events_path must be a URL path starting with /',
  })
  events_path?: string;
}
