import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '@app/server';
import { QueueModule } from './app.module';
import { QueueConfig } from './config';

/** Builds the queue service (not yet listening): used by main.ts and by the test suites. */
export function createQueueApp(config: QueueConfig): Promise<NestFastifyApplication> {
  return createHttpApp(QueueModule.forRoot(config), { name: 'queue', shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS });
}
