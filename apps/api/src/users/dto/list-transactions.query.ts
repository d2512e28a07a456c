import { ApiProperty } from '@nestjs/swagger';
import { IsString, registerDecorator } from 'class-validator';

/** A real calendar date written YYYY-MM-DD (2025-02-30 is refused). */
export function isCalendarDate(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

function IsCalendarDate(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isCalendarDate',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: '$property must be a calendar date written YYYY-MM-DD' },
      validator: { validate: isCalendarDate },
    });
}

export class ListTransactionsQuery {
  @ApiProperty({ example: '2025-11-01', description: 'Start of the period (00:00 UTC), YYYY-MM-DD' })
  @IsString({ message: 'start_date is required (YYYY-MM-DD)' })
  @IsCalendarDate()
  start_date: string;
}
