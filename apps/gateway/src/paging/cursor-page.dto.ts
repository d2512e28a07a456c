import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';

/** `?cursor=&limit=` of the gateway's cursor-paged lists (messages, course events). */
export class CursorPageQueryDto {
  @ApiPropertyOptional({ description: 'The next_cursor of the previous page' })
  @IsOptional()
  @IsString()
  @Matches(/^[0-9a-f-]{36}$/, { message: 'cursor must be the next_cursor of a previous page' })
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @Matches(/^(100|[1-9][0-9]?)$/, { message: 'limit must be a whole number from 1 to 100' })
  limit?: string;
}

/** The `next_cursor` of a cursor-paged list's answer. */
export const ApiNextCursor = (): PropertyDecorator =>
  ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last' });
