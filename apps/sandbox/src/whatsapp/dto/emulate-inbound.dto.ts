import { SANDBOX_MEDIA_MAX_SIZE } from '../../media/sandbox-media';
import { Type } from 'class-transformer';
import {
  IsInt,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  MinLength,
  ValidateNested,
  Min,
} from 'class-validator';
import {
  WHATSAPP_INBOUND_KINDS,
  WHATSAPP_SENDER_SHAPES,
  WhatsAppInboundKind,
  WhatsAppSenderShape,
} from '../inbound-kinds';

export class InboundReactionDto {
  /** The wamid of the business message reacted to. */
  @IsString()
  @MinLength(1)
  message_id!: string;

  /** Empty removes a reaction. */
  @IsString()
  @MaxLength(16)
  emoji!: string;
}

export class EmulateInboundDto {
  @IsString()
  @Matches(/^\d{1,32}$/)
  phone_number_id!: string;

  /** The recipient writing to the business. */
  @IsString()
  @Matches(/^[1-9]\d{7,14}$/)
  from!: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(4096)
  text?: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => InboundReactionDto)
  reaction?: InboundReactionDto;

  @IsOptional()
  @IsString()
  @MaxLength(256)
  profile_name?: string;

  /** What the message is (docs/sandbox.md, Inbound messages); default: `text`, or `reaction` with `reaction`. */
  @IsOptional()
  @IsIn(WHATSAPP_INBOUND_KINDS)
  kind?: WhatsAppInboundKind;

  /** Media kinds: the size in bytes of the file its media id serves (default 4096; docs/sandbox.md, Inbound media). */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(SANDBOX_MEDIA_MAX_SIZE)
  media_size?: number;

  /** How the webhook names the sender: `phone` (default), `phone_and_user_id` or `user_id` (no phone). */
  @IsOptional()
  @IsIn(WHATSAPP_SENDER_SHAPES)
  sender?: WhatsAppSenderShape;

  /** The sender's business-scoped user id; default `ZZ.<from>`. */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Z]{2}\.[A-Za-z0-9.]{1,128}$/)
  user_id?: string;

  /** The sender's WhatsApp username (`contacts[].profile.username`). */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  username?: string;

  /** `user_id_change`: the id the sender had before; default `ZZ.old.<from>`. */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Z]{2}\.[A-Za-z0-9.]{1,128}$/)
  previous_user_id?: string;

  /** `button_reply` and `list_reply`: the id of the pressed button or picked row (default `btn-1`, `row-1`). */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  reply_id?: string;

  /** The business message this one answers or quotes (`context.id`); for `edit`, the edited message. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  context_message_id?: string;

  /** The wamid to use: the same one again repeats a message, as Meta repeats webhooks. */
  @IsOptional()
  @IsString()
  @Matches(/^wamid\.[A-Za-z0-9._=-]{1,200}$/)
  message_id?: string;
}
