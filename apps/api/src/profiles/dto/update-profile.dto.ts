import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsISO31661Alpha2, IsString, IsUrl, MaxLength, ValidateIf } from 'class-validator';

/** Null (or an empty string) clears a field; an absent field keeps its value. */
const given = (field: string) => (o: Record<string, unknown>) =>
  o[field] !== undefined && o[field] !== null && o[field] !== '';

export class UpdateProfileDto {
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 256 })
  @ValidateIf(given('address'))
  @IsString()
  @MaxLength(256)
  address?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'ISO 3166-1 alpha-2 code', example: 'DE' })
  @ValidateIf(given('country'))
  @IsString()
  @IsISO31661Alpha2({ message: 'country must be an ISO 3166-1 alpha-2 code such as DE' })
  country?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 512 })
  @ValidateIf(given('description'))
  @IsString()
  @MaxLength(512)
  description?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 128, format: 'email' })
  @ValidateIf(given('email'))
  @IsString()
  @MaxLength(128)
  @IsEmail({}, { message: 'email must be an email address' })
  email?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 256, format: 'uri', example: 'https://example.com' })
  @ValidateIf(given('website'))
  @IsString()
  @MaxLength(256)
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true },
    { message: 'website must be an http:// or https:// URL' },
  )
  website?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 139 })
  @ValidateIf(given('about'))
  @IsString()
  @MaxLength(139)
  about?: string | null;
}
