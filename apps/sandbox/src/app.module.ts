import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { HealthModule, loggingModule } from '@app/server';
import { SandboxConfig } from './config';
import { BotsModule } from './bots/bots.module';
import { CourseSandboxModule } from './course/course.module';
import { SandboxMediaModule } from './media/media.module';
import { WhatsAppModule } from './whatsapp/whatsapp.module';

/** Emulators of the external parties, for the local stack and end-to-end tests. */
@Module({})
export class SandboxModule {
  static forRoot(config: SandboxConfig): DynamicModule {
    return {
      module: SandboxModule,
      imports: [
        ConfigModule.forRoot(config),
        loggingModule('sandbox', config.LOG_LEVEL),
        HealthModule.forRoot([]),
        WhatsAppModule,
        BotsModule,
        CourseSandboxModule,
        SandboxMediaModule,
      ],
    };
  }
}
