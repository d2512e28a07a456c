import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUrl, MaxLength, MinLength } from 'class-validator';
import { SEND_MEDIA_TYPES, SendMediaType } from '@app/contracts';
import { ApiNextCursor } from '../../../paging/cursor-page.dto';

/** `POST /v1/media` as JSON: a file the gateway fetches from a URL. */
export class CreateMediaFromUrlDto {
  @ApiProperty({
    example: 'https://shop.example/banner.jpg',
    description: 'The https URL of the file, fetched through the egress policy (a private address is refused)',
  })
  @IsString()
  @MaxLength(2048)
  @IsUrl(
    { protocols: ['https', 'http'], require_protocol: true, require_tld: false },
    { message: 'url must be an https URL' },
  )
  url: string;

  @ApiPropertyOptional({ example: 'banner.jpg', description: 'The file name documents are sent with' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(240)
  file_name?: string;
}

/** A file of the media library. */
export class LibraryMediaDto {
  @ApiProperty({ format: 'uuid', description: 'The media_id a content of its type sends' })
  id: string;

  @ApiProperty({ enum: SEND_MEDIA_TYPES, description: 'The content type it is sent as, from mime_type' })
  type: SendMediaType;

  @ApiProperty({ example: 'image/jpeg', description: "The type read from the file's bytes" })
  mime_type: string;

  @ApiProperty({ type: 'integer', example: 48213, description: 'Bytes' })
  size: number;

  @ApiProperty({ example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' })
  sha256: string;

  @ApiProperty({ type: String, nullable: true, example: 'banner.jpg' })
  file_name: string | null;

  @ApiProperty({ type: 'integer', description: 'Unix seconds' })
  created_at: number;
}

export class LibraryMediaPageDto {
  @ApiProperty({ type: [LibraryMediaDto] })
  data: LibraryMediaDto[];

  @ApiNextCursor()
  next_cursor: string | null;
}
