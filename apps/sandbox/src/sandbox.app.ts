import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '@app/server';
import { AppModule } from './app.module';
import { SandboxConfig } from './config';

/** Builds the sandbox (not yet listening): used by main.ts and by the test suites. */
export function createSandboxApp(config: SandboxConfig): Promise<NestFastifyApplication> {
  return createHttpApp(AppModule.forRoot(config), { name: 'sandbox' });
}
