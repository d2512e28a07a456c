import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { CONNECTION_CHANNELS, ConnectionChannel } from '../connection.entity';

/** `POST /v1/connections`: a WhatsApp app to link, or a bot token to connect. */
export class CreateConnectionDto {
  @ApiProperty({ enum: CONNECTION_CHANNELS })
  @IsIn(CONNECTION_CHANNELS)
  channel: ConnectionChannel;

  /** whatsapp: one of the account's user's ACTIVE apps. */
  @ApiPropertyOptional({ example: 12 })
  @ValidateIf((o: CreateConnectionDto) => o.channel === 'whatsapp')
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  app_id?: number;

  /** telegram, max: the bot's token, checked with the channel; never returned. */
  @ApiPropertyOptional({ writeOnly: true })
  @ValidateIf((o: CreateConnectionDto) => o.channel === 'telegram' || o.channel === 'max')
  @IsString()
  @MaxLength(256)
  @Matches(/^[A-Za-z0-9:_-]{8,256}$/, {
    message: 'bot_token must be the token the channel issued (letters, digits, ":", "_", "-")',
  })
  bot_token?: string;
}
