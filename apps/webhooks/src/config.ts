import { IsInt, Max, Min, registerDecorator, ValidationOptions } from 'class-validator';
import { DatabaseConfig } from '@app/config';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const UNIT_MS: Record<string, number> = { ms: 1, '': 1, s: 1000, m: 60_000, h: HOUR_MS, d: DAY_MS };

/**
 * Parses `5s,5m,30m,2h` (plain numbers are milliseconds) into milliseconds; null when any part is
 * not a positive duration.
 */
export function parseDurations(value: string): number[] | null {
  const parts = value.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.length > 50) return null;
  const out: number[] = [];
  for (const part of parts) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(part);
    if (!m) return null;
    const ms = Math.round(Number(m[1]) * UNIT_MS[m[2] ?? '']);
    if (!Number.isFinite(ms) || ms <= 0) return null;
    out.push(ms);
  }
  return out;
}

function IsDurationList(options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isDurationList',
      target: object.constructor,
      propertyName,
      options: {
        message: `${propertyName} must be comma-separated durations in ms or with an s, m, h or d suffix (e.g. 5s,5m,30m)`,
        ...options,
      },
      validator: { validate: (v: unknown) => typeof v === 'string' && parseDurations(v) !== null },
    });
}

export class WebhooksConfig extends DatabaseConfig {
  @IsInt()
  @Min(1)
  @Max(65535)
  WEBHOOKS_PORT: number = 3300;

  /** Waits between a failed attempt and the next one; its length is the number of retries. */
  @IsDurationList()
  WEBHOOK_RETRY_SCHEDULE: string = '5s,5m,30m,2h,5h,10h,10h';

  /** An attempt that has not answered within this time has failed. */
  @IsInt()
  @Min(100)
  @Max(120_000)
  WEBHOOK_TIMEOUT_MS: number = 15_000;

  /** A subscription whose deliveries fail without a success for this long is disabled. */
  @IsInt()
  @Min(1000)
  WEBHOOK_DISABLE_AFTER_MS: number = 5 * DAY_MS;

  /** After a secret rotation the previous secret still signs deliveries for this long. */
  @IsInt()
  @Min(0)
  WEBHOOK_ROTATION_GRACE_MS: number = DAY_MS;

  /** How often an idle dispatcher looks for due deliveries (it is also woken by new ones). */
  @IsInt()
  @Min(10)
  @Max(60_000)
  WEBHOOK_POLL_INTERVAL_MS: number = 200;

  /** Attempts in flight at once to one subscription; 1 keeps a healthy subscriber's order. */
  @IsInt()
  @Min(1)
  @Max(100)
  WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION: number = 1;

  /** Attempts in flight at once in this process, across all subscriptions. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  WEBHOOK_CONCURRENCY: number = 200;

  /**
   * Delivered and failed bodies (which may hold inbound message content) are kept no longer than
   * the EVENTS stream keeps events; after that a delivery can no longer be resent.
   */
  @IsInt()
  @Min(60_000)
  WEBHOOK_PAYLOAD_RETENTION_MS: number = 7 * DAY_MS;

  /** How often the retry-backlog gauge and housekeeping (retention, pending notices) run. */
  @IsInt()
  @Min(100)
  @Max(600_000)
  WEBHOOK_HOUSEKEEPING_INTERVAL_MS: number = 5000;

  get retryScheduleMs(): number[] {
    return parseDurations(this.WEBHOOK_RETRY_SCHEDULE) ?? [];
  }
}
