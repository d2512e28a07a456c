import { SANDBOX_MEDIA_MAX_SIZE } from '../../media/sandbox-media';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { FaultSwitchDto } from '../../faults/fault-switch.dto';
import type { BotFaultMode } from '../bot-emulator';
import { BOT_INBOUND_KINDS, BotInboundKind } from '../inbound-updates';

export class RegisterBotDto {
  /** The token the bot API will accept; made up when omitted. */
  @IsOptional()
  @IsString()
  @MinLength(8)
  @MaxLength(256)
  @Matches(/^[A-Za-z0-9:_-]+$/)
  token?: string;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_]{3,64}$/)
  username?: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  name?: string;
}

export class SetBotFaultDto extends FaultSwitchDto {
  /** 429 with retry_after; 500; hang (no answer); blocked (the user blocked the bot). */
  @IsIn(['429', '500', 'hang', 'blocked'])
  mode!: BotFaultMode;

  /** Only this bot (its id or token). */
  @IsOptional()
  @IsString()
  @MaxLength(256)
  bot?: string;
}

/** A user writes to a bot, sends it a photo or a document, or presses one of its buttons. */
export class EmulateBotInboundDto {
  /** The bot's token or id. */
  @IsString()
  @MaxLength(256)
  bot!: string;

  /** Telegram: the chat id; MAX: the user id. Not needed with `repeat_update_id`. */
  @ValidateIf((o: EmulateBotInboundDto) => o.repeat_update_id === undefined)
  @IsString()
  @Matches(/^-?\d{1,20}$/)
  from!: string;

  @IsOptional()
  @IsString()
  @MaxLength(4096)
  text?: string;

  @IsOptional()
  @IsString()
  @Matches(/^https?:\/\/\S+$/)
  photo_url?: string;

  @IsOptional()
  @IsString()
  @Matches(/^https?:\/\/\S+$/)
  document_url?: string;

  /** A button press with this callback data (Telegram) or payload (MAX). */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  callback_data?: string;

  /** Media kinds: the size in bytes of the file its file_id or URL serves (default 4096; docs/sandbox.md, Inbound media). */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(SANDBOX_MEDIA_MAX_SIZE)
  media_size?: number;

  /** The kind of update (docs/sandbox.md); without it: text, photo_url, document_url or callback_data decide. */
  @IsOptional()
  @IsIn(BOT_INBOUND_KINDS)
  kind?: BotInboundKind;

  /** The message an `edit`, a `reaction` or a `button` press is about (Telegram: its number; MAX: its mid). */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9._:-]{1,128}$/)
  message_id?: string;

  /** Send the same update again (its id unchanged), as a channel does after a timeout. */
  @IsOptional()
  @IsInt()
  @Min(1)
  repeat_update_id?: number;
}
