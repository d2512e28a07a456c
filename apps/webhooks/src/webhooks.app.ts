import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '@app/server';
import { WebhooksModule } from './app.module';
import { WebhooksConfig } from './config';

/** Builds the webhooks service (not yet listening): used by main.ts and by the test suites. */
export function createWebhooksApp(config: WebhooksConfig): Promise<NestFastifyApplication> {
  return createHttpApp(WebhooksModule.forRoot(config), {
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    name: 'webhooks',
    rpc: { url: config.NATS_URL, prefix: config.NATS_PREFIX, queue: 'webhooks' },
  });
}
