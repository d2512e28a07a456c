export {
  TelegramConnector,
  TELEGRAM_DEFAULT_API_URL,
  TELEGRAM_DEFAULT_PACING,
  toTelegramRequest,
} from './telegram.connector';
export type { TelegramConnectorConfig } from './telegram.connector';
export { normalizeTelegramUpdate } from './telegram-update.normalizer';
