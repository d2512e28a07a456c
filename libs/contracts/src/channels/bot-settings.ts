import type { NumberSetting } from './registration';

/** Bot API calls of Telegram and MAX: one variable for both channels, read by both services. */
export const BOT_API_TIMEOUT_SETTING = {
  env: 'BOT_API_TIMEOUT_MS',
  type: 'int',
  default: { gateway: 5000, queue: 10_000 },
  min: 100,
  max: { gateway: 60_000, queue: 120_000 },
  services: ['gateway', 'queue'],
  description:
    'Bot API calls: connecting and disconnecting a bot (gateway); sends (queue), abandoned with their outcome unknown after it',
} as const satisfies NumberSetting;
