import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** The App profile object: a field is absent when no value is set. */
export class ProfileDto {
  @ApiPropertyOptional()
  address?: string;

  @ApiPropertyOptional({ description: 'ISO 3166-1 alpha-2' })
  country?: string;

  @ApiPropertyOptional()
  description?: string;

  @ApiPropertyOptional()
  email?: string;

  @ApiPropertyOptional()
  website?: string;

  @ApiPropertyOptional()
  about?: string;
}

export class ProfilePhotoDto {
  @ApiProperty({ format: 'uri', description: 'Public URL of the profile photo' })
  url: string;
}
