import { ApiProperty } from '@nestjs/swagger';
import { APP_STATUSES, AppStatus, MESSAGE_LIMITS, MessageLimit, PHONE_QUALITIES, PhoneQuality } from '../app.entity';

/** The answer to app creation. */
export class CreatedAppDto {
  @ApiProperty({ example: 12 })
  id: number;

  @ApiProperty({ format: 'uuid', description: 'UUID v4' })
  uuid: string;

  @ApiProperty({ example: 'Acme support' })
  name: string;

  @ApiProperty({
    format: 'uri',
    description:
      'Onboarding page where the business connects its WhatsApp number; the link is its credential. It expires (7 days by default) and is spent once a number is connected.',
  })
  embed_link_url: string;
}

/** A fresh onboarding link. */
export class EmbedLinkDto {
  @ApiProperty({
    format: 'uri',
    description: 'Onboarding page where the business connects its WhatsApp number; the link is its credential.',
  })
  embed_link_url: string;

  @ApiProperty({ description: 'Unix seconds after which the link no longer opens', example: 1764304800 })
  expires_at: number;
}

/** The API's App object (docs/api.md, Apps). */
export class AppDto {
  @ApiProperty({ example: 12 })
  id: number;

  @ApiProperty({ format: 'uuid' })
  uuid: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: APP_STATUSES })
  status: AppStatus;

  @ApiProperty({ enum: MESSAGE_LIMITS })
  message_limit: MessageLimit;

  @ApiProperty({ enum: PHONE_QUALITIES })
  phone_quality: PhoneQuality;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '79990001122',
    description: 'International format, digits only; null until a number is connected.',
  })
  phone: string | null;

  @ApiProperty({ type: String, nullable: true })
  waba_id: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '106540352242922',
    description:
      "The channel's id of the connected number (the Cloud API phone_number_id; in the sandbox, what its controls take); null until a number is connected.",
  })
  phone_number_id: string | null;

  @ApiProperty()
  is_mm_lite_supported: boolean;

  @ApiProperty()
  is_stopped: boolean;

  @ApiProperty({ description: 'Unix seconds', example: 1763700000 })
  created_at: number;
}
