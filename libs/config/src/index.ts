export { loadConfig, ConfigError } from './load-config';
export { BaseConfig, DatabaseConfig, PublicApiConfig, NODE_ENVS } from './base.config';
export type { NodeEnv } from './base.config';
export { ConfigModule } from './config.module';
export { loadConfigOrExit } from './exit';
export { UsageError, requireUuid, requireText, requireAmount, printResult } from './cli-support';
export { Secret, SANDBOX_SECRETS, secretVariables } from './secret';
export { channelSettings } from './channel-settings';
export type { ChannelSettingsClass, ChannelSettingsReader } from './channel-settings';
export { loadChannelModules } from './channel-modules';
export {
  DEV_CREDENTIALS_KEYS,
  IsCredentialsKeys,
  isCredentialsKeys,
  isDevelopmentKey,
  hasDevelopmentKey,
  WEBHOOKS_DEVELOPMENT_KEY,
} from './credentials-keys';
export { SERVICE_NODE_FLAGS } from './node-flags';
