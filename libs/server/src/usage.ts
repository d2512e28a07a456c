import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, registerDecorator } from 'class-validator';
import type { FastifyReply } from 'fastify';
import {
  CHANNELS,
  IsRegisteredChannel,
  MESSAGE_CATEGORIES,
  USAGE_COUNTERS,
  USAGE_MAX_DAYS,
  UsageQuery,
  UsageReport,
  UsageRow,
} from '@app/contracts';
import { ValidationProblem } from './problem';

const DAY_MS = 86_400_000;

/** A real calendar date written YYYY-MM-DD (2025-02-30 is refused). */
export function isCalendarDate(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

export function IsCalendarDate(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isCalendarDate',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: '$property must be a calendar date written YYYY-MM-DD' },
      validator: { validate: isCalendarDate },
    });
}

/** `?from=&to=&channel=&category=` of a usage report (the api's and the gateway's). */
export class UsageQueryDto implements UsageQuery {
  @ApiProperty({ example: '2026-11-01', description: 'First day of the period (from 00:00 UTC), YYYY-MM-DD' })
  @IsString({ message: 'from is required (YYYY-MM-DD)' })
  @IsCalendarDate()
  from: string;

  @ApiProperty({
    example: '2026-11-30',
    description: `Last day of the period, included (until 24:00 UTC), YYYY-MM-DD; from=2026-11-26&to=2026-11-26 is that one day. Not earlier than from; the period spans at most ${USAGE_MAX_DAYS} days, both ends counted`,
  })
  @IsString({ message: 'to is required (YYYY-MM-DD)' })
  @IsCalendarDate()
  to: string;

  @ApiPropertyOptional({ enum: CHANNELS })
  @IsOptional()
  @IsRegisteredChannel(undefined, { message: () => `channel must be one of ${CHANNELS.join(', ')}` })
  channel?: string;

  @ApiPropertyOptional({ enum: MESSAGE_CATEGORIES, description: 'SERVICE: free-form messages in a conversation' })
  @IsOptional()
  @IsIn(MESSAGE_CATEGORIES, { message: `category must be one of ${MESSAGE_CATEGORIES.join(', ')}` })
  category?: string;
}

/**
 * The period of a usage report as instants, after the checks that need both ends (and those of
 * the fields themselves, for a query that did not come through the DTO). Both dates are days of
 * the period, as date-only periods are in other usage APIs: `to` is included, so from=to is that
 * one day; the period runs from 00:00 UTC of `from` up to (excluding) 00:00 UTC of the day after
 * `to`, and spans at most USAGE_MAX_DAYS days, both ends counted.
 */
export function usagePeriod(query: UsageQuery): { from: Date; to: Date } {
  for (const field of ['from', 'to'] as const) {
    if (!isCalendarDate(query[field])) {
      throw new ValidationProblem([{ field, message: `${field} must be a calendar date written YYYY-MM-DD` }]);
    }
  }
  if (query.channel !== undefined && !(CHANNELS as readonly string[]).includes(query.channel)) {
    throw new ValidationProblem([{ field: 'channel', message: `channel must be one of ${CHANNELS.join(', ')}` }]);
  }
  if (query.category !== undefined && !(MESSAGE_CATEGORIES as readonly string[]).includes(query.category)) {
    throw new ValidationProblem([
      { field: 'category', message: `category must be one of ${MESSAGE_CATEGORIES.join(', ')}` },
    ]);
  }
  const from = new Date(`${query.from}T00:00:00Z`);
  const to = new Date(Date.parse(`${query.to}T00:00:00Z`) + DAY_MS);
  if (to <= from) throw new ValidationProblem([{ field: 'to', message: 'to must not be earlier than from' }]);
  if (to.getTime() - from.getTime() > USAGE_MAX_DAYS * DAY_MS) {
    throw new ValidationProblem([
      {
        field: 'to',
        message: `the period may span at most ${USAGE_MAX_DAYS} days, from and to included`,
      },
    ]);
  }
  return { from, to };
}

/** The date-only `to` of a usage query whose period ends (exclusive) at the instant `end`, a day boundary. */
export function usageLastDay(end: Date): string {
  return new Date(end.getTime() - DAY_MS).toISOString().slice(0, 10);
}

export class UsageRowDto implements UsageRow {
  @ApiProperty({
    example: '2026-11-25T13:00:00Z',
    description: 'Start of the hour (UTC) the messages were accepted in',
  })
  hour: string;

  @ApiProperty({ enum: CHANNELS, example: 'whatsapp' })
  channel: string;

  @ApiProperty({ enum: MESSAGE_CATEGORIES, example: 'MARKETING' })
  category: UsageRow['category'];

  @ApiProperty({ example: 120, description: 'Messages accepted' })
  queued: number;

  @ApiProperty({ example: 118, description: 'Of those, sent to the channel (or further)' })
  sent: number;

  @ApiProperty({ example: 110, description: 'Of those, delivered (or read)' })
  delivered: number;

  @ApiProperty({ example: 64 })
  read: number;

  @ApiProperty({ example: 2 })
  failed: number;

  @ApiProperty({ example: 5.9, description: 'Money captured for these messages' })
  cost: number;

  @ApiProperty({ example: 'USD' })
  currency: string;
}

export class UsageReportDto implements UsageReport {
  @ApiProperty({ type: [UsageRowDto] })
  data: UsageRowDto[];
}

/** The 200 answer of a usage endpoint: JSON, or CSV for `Accept: text/csv`. */
export function ApiUsageResponse(): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(UsageReportDto),
    ApiOkResponse({
      description: 'Rows per hour (UTC), channel and category; CSV (header row, RFC 4180) with Accept: text/csv',
      content: {
        'application/json': { schema: { $ref: getSchemaPath(UsageReportDto) } },
        'text/csv': {
          schema: {
            type: 'string',
            example:
              'hour,channel,category,queued,sent,delivered,read,failed,cost,currency\r\n2026-11-25T13:00:00Z,whatsapp,MARKETING,120,118,110,64,2,5.9,USD\r\n',
          },
        },
      },
    }),
  );
}

const CSV_COLUMNS = ['hour', 'channel', 'category', ...USAGE_COUNTERS, 'cost', 'currency'] as const;

/** One CSV field, RFC 4180: quoted when it holds a comma, a quote or a line break. */
function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The report as RFC 4180 CSV: a header row, then one line per row, CRLF line ends. */
export function usageCsv(report: UsageReport): string {
  const lines = [
    CSV_COLUMNS.join(','),
    ...report.data.map((row) => CSV_COLUMNS.map((c) => csvField(row[c])).join(',')),
  ];
  return `${lines.join('\r\n')}\r\n`;
}

/** Answers a usage report as JSON, or as CSV when the client asks for `text/csv`. */
export async function sendUsage(reply: FastifyReply, accept: string | undefined, report: UsageReport): Promise<void> {
  if (accept && /(^|,)\s*text\/csv\s*(;|,|$)/i.test(accept)) {
    await reply.status(200).header('Content-Type', 'text/csv; charset=utf-8').send(usageCsv(report));
    return;
  }
  await reply.status(200).send(report);
}
