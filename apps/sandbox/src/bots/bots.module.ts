import { Module } from '@nestjs/common';
import { SandboxConfig } from '../config';
import { SandboxClock } from '../whatsapp/sandbox-clock';
import { BotControlsController } from './bot-controls.controller';
import { BotEmulator, MAX_EMULATOR, TELEGRAM_EMULATOR } from './bot-emulator';
import { MaxBotApiController } from './max-bot-api.controller';
import { TelegramBotApiController } from './telegram-bot-api.controller';

/** Emulators of the Telegram Bot API and the MAX Bot API, with their control endpoints. */
@Module({
  controllers: [TelegramBotApiController, MaxBotApiController, BotControlsController],
  providers: [
    SandboxClock,
    // Telegram sends a webhook's secret in X-Telegram-Bot-Api-Secret-Token, MAX in X-Max-Bot-Api-Secret.
    {
      provide: TELEGRAM_EMULATOR,
      useFactory: (clock: SandboxClock, config: SandboxConfig) =>
        new BotEmulator('telegram', 'X-Telegram-Bot-Api-Secret-Token', clock, config.SANDBOX_RECORDS_MAX),
      inject: [SandboxClock, SandboxConfig],
    },
    {
      provide: MAX_EMULATOR,
      useFactory: (clock: SandboxClock, config: SandboxConfig) =>
        new BotEmulator('max', 'X-Max-Bot-Api-Secret', clock, config.SANDBOX_RECORDS_MAX),
      inject: [SandboxClock, SandboxConfig],
    },
  ],
})
export class BotsModule {}
