import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { APP_NAME_LENGTH } from '@app/contracts';

/** `POST /v1/connections/signups`. */
export class StartWhatsAppSignupDto {
  @ApiProperty({ minLength: APP_NAME_LENGTH.min, maxLength: APP_NAME_LENGTH.max, example: 'Acme support' })
  @IsString()
  @Length(APP_NAME_LENGTH.min, APP_NAME_LENGTH.max)
  name: string;
}

export class WhatsAppSignupDto {
  @ApiProperty({ description: 'The new app: link it with POST /v1/connections once `connected`' })
  app_id: number;

  @ApiProperty({ description: "Opens the channel's embedded signup for the app (the business signs in there)" })
  embed_link_url: string;

  @ApiProperty({ type: 'integer', description: 'Unix seconds: when the link stops working' })
  expires_at: number;
}

export class WhatsAppSignupStatusDto {
  @ApiProperty()
  app_id: number;

  @ApiProperty({ enum: ['INACTIVE', 'ACTIVE', 'BLOCKED'] })
  status: string;

  @ApiProperty({ description: 'Whether the signup connected a number and the app is ACTIVE' })
  connected: boolean;

  @ApiProperty({ type: String, nullable: true, example: '5511987650001', description: 'The connected number' })
  phone: string | null;
}
