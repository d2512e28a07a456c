import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { IsCalendarDate } from '@app/server';

/** How many transactions one answer holds unless `limit` says otherwise, and at most. */
export const TRANSACTIONS_PAGE = { default: 10_000, max: 100_000 } as const;

/** A page's first transaction: its time in microseconds since the epoch, a dot, its id. */
export const TRANSACTIONS_CURSOR = /^(\d{1,17})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export class ListTransactionsQuery {
  @ApiProperty({ example: '2025-11-01', description: 'Start of the period (00:00 UTC), YYYY-MM-DD' })
  @IsString({ message: 'start_date is required (YYYY-MM-DD)' })
  @IsCalendarDate()
  start_date: string;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: TRANSACTIONS_PAGE.max,
    default: TRANSACTIONS_PAGE.default,
    description:
      'Transactions in this answer at most; when more follow, the Link header (rel="next") names the next page',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be a whole number' })
  @Min(1)
  @Max(TRANSACTIONS_PAGE.max)
  limit?: number;

  @ApiPropertyOptional({
    description: 'Where the page starts: the value the previous answer gave in its Link header (opaque)',
  })
  @IsOptional()
  @IsString()
  @Matches(TRANSACTIONS_CURSOR, { message: 'cursor is not one this endpoint gave' })
  cursor?: string;
}
