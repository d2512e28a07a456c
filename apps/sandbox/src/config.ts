import { IsIn, IsInt, IsUrl, Max, Min } from 'class-validator';
import { NODE_ENVS, NodeEnv } from '@app/config';

/** The sandbox emulates external parties; it needs neither Postgres nor NATS. */
export class SandboxConfig {
  @IsIn(NODE_ENVS)
  NODE_ENV: NodeEnv = 'development';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';

  @IsInt()
  @Min(1)
  @Max(65535)
  SANDBOX_PORT: number = 3900;

  /** Where the emulated channels send their callbacks (the gateway's inbound endpoints). */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  GATEWAY_PUBLIC_URL: string = 'http://localhost:3100';
}
