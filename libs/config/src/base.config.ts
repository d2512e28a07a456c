import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength, ValidateIf } from 'class-validator';

export const NODE_ENVS = ['development', 'test', 'production'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

/** Variables every service reads. Each service's config class extends this one. */
export class BaseConfig {
  @IsIn(NODE_ENVS)
  NODE_ENV: NodeEnv = 'development';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';

  @Matches(/^(nats|tls|ws|wss):\/\/[^\s]+(,(nats|tls|ws|wss):\/\/[^\s]+)*$/, {
    message: 'NATS_URL must be one or more comma-separated nats:// URLs',
  })
  NATS_URL: string = 'nats://127.0.0.1:4222';

  /** Prefixes every stream, consumer and subject: isolates test suites and tenants of one NATS. */
  @IsOptional()
  @Matches(/^[a-z0-9_]{0,24}$/, { message: 'NATS_PREFIX must be up to 24 of a-z, 0-9 and _' })
  NATS_PREFIX: string = '';

  /** This service's own NATS user (docs/security-deployment.md); unset on a NATS without auth. */
  @IsOptional()
  @Matches(/^[a-z0-9_]{1,64}$/, { message: 'NATS_USER must be up to 64 of a-z, 0-9 and _' })
  NATS_USER?: string;

  @ValidateIf((c: BaseConfig) => c.NATS_USER !== undefined)
  @IsString()
  @MinLength(16, { message: 'NATS_PASSWORD must be set, at least 16 characters, when NATS_USER is' })
  NATS_PASSWORD?: string;

  /** Where `/readyz` and `/metrics` are served; by default the service's port + 1000. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(65535)
  ADMIN_PORT?: number;

  @IsInt()
  @Min(1000)
  @Max(120000)
  SHUTDOWN_TIMEOUT_MS: number = 10000;

  get isProduction(): boolean {
    return this.NODE_ENV === 'production';
  }
}

/** Services that own a Postgres schema. */
export class DatabaseConfig extends BaseConfig {
  @Matches(/^postgres(ql)?:\/\/[^\s]+$/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL: string = 'postgres://postgres@127.0.0.1:5432/messaging';

  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE: number = 10;
}

/** Services with a public HTTP API: a per-token request rate shared by their replicas through Postgres. */
export class PublicApiConfig extends DatabaseConfig {
  /** Requests per second each token may make (refilled continuously), shared by every replica. */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  RATE_LIMIT_PER_SECOND: number = 100;

  /** How many requests a token may make at once after being idle (the bucket size). */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  RATE_LIMIT_BURST: number = 100;
}
