export { loadConfig, ConfigError } from './load-config';
export { BaseConfig, DatabaseConfig, NODE_ENVS } from './base.config';
export type { NodeEnv } from './base.config';
export { ConfigModule } from './config.module';
export { loadConfigOrExit } from './exit';
export { UsageError, requireUuid, requireText, requireAmount, printResult } from './cli-support';
