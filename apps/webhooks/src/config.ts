import { IsIn, IsInt, Max, Min, registerDecorator, ValidationOptions } from 'class-validator';
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

/**
 * A string, and set when NODE_ENV is production. It fails only on a missing value, so the error
 * never prints a secret (the format is checked where the value is used, naming only the variable).
 */
function RequiredInProduction(options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'requiredInProduction',
      target: object.constructor,
      propertyName,
      options: { message: `${propertyName} must be set in production`, ...options },
      validator: {
        validate: (v: unknown, args) =>
          (args?.object as { NODE_ENV?: string }).NODE_ENV !== 'production' ||
          (typeof v === 'string' && v.trim() !== ''),
      },
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

  /**
   * Attempts in flight at once to one subscription (its window). The events of one message still
   * go one after another, in lifecycle order; different messages' events share the window.
   */
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION: number = 32;

  /**
   * Attempts in flight at once for one tenant across its subscriptions, so one tenant's hanging
   * endpoints cannot take the whole process's slots.
   */
  @IsInt()
  @Min(1)
  @Max(10_000)
  WEBHOOK_CONCURRENCY_PER_TENANT: number = 64;

  /** Subscriptions one user may have. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  WEBHOOK_MAX_SUBSCRIPTIONS_PER_USER: number = 20;

  /**
   * `true` lets subscriptions point at plain HTTP and private or loopback addresses (local
   * receivers in development and tests). Anything else keeps the SSRF protection on, whatever
   * NODE_ENV says.
   */
  @IsIn(['true', 'false'])
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: string = 'false';

  /**
   * Keys that encrypt signing secrets at rest: `id:base64-of-32-bytes`, comma-separated; the first
   * encrypts, every one decrypts (rotation: put the new key first, keep the old one until the
   * housekeeping pass has re-encrypted every row). Required in production.
   */
  @RequiredInProduction()
  WEBHOOK_SECRET_KEYS?: string;

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

  get allowPrivateTargets(): boolean {
    return this.WEBHOOKS_ALLOW_PRIVATE_TARGETS === 'true';
  }

  get retryScheduleMs(): number[] {
    return parseDurations(this.WEBHOOK_RETRY_SCHEDULE) ?? [];
  }
}
