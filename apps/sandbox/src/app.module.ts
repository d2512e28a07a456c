import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { HealthModule, loggingModule } from '@app/server';
import { SandboxConfig } from './config';
import { WhatsAppModule } from './whatsapp/whatsapp.module';

/** Emulators of the external parties, for the local stack and end-to-end tests. */
@Module({})
export class AppModule {
  static forRoot(config: SandboxConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        loggingModule('sandbox', config.LOG_LEVEL),
        HealthModule.forRoot([]),
        WhatsAppModule,
      ],
    };
  }
}
