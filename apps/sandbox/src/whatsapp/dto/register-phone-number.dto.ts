import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

export class RegisterPhoneNumberDto {
  @IsString()
  @Matches(/^\d{1,32}$/)
  phone_number_id!: string;

  @IsString()
  @Matches(/^\d{1,32}$/)
  waba_id!: string;

  @IsOptional()
  @IsString()
  @MaxLength(32)
  display_phone_number?: string;

  @IsOptional()
  @IsString()
  @MaxLength(256)
  verified_name?: string;

  @IsOptional()
  @IsIn(['GREEN', 'YELLOW', 'RED', 'UNKNOWN'])
  quality_rating?: 'GREEN' | 'YELLOW' | 'RED' | 'UNKNOWN';

  @IsOptional()
  @IsIn(['TIER_50', 'TIER_250', 'TIER_1K', 'TIER_2K', 'TIER_10K', 'TIER_100K', 'TIER_UNLIMITED', 'TIER_NOT_SET'])
  messaging_limit_tier?: string;
}
