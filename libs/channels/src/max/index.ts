export { MaxConnector, MAX_DEFAULT_API_URL, MAX_DEFAULT_PACING, toMaxRequest } from './max.connector';
export type { MaxConnectorConfig } from './max.connector';
export { normalizeMaxUpdate } from './max-update.normalizer';
