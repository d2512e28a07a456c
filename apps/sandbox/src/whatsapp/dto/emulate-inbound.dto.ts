import { Type } from 'class-transformer';
import { IsOptional, IsString, Matches, MaxLength, MinLength, ValidateNested } from 'class-validator';

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
}
