import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { IsCalendarDate } from '@app/server';

export class ListTransactionsQuery {
  @ApiProperty({ example: '2025-11-01', description: 'Start of the period (00:00 UTC), YYYY-MM-DD' })
  @IsString({ message: 'start_date is required (YYYY-MM-DD)' })
  @IsCalendarDate()
  start_date: string;
}
