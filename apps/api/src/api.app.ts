import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '@app/server';
import { ApiModule } from './app.module';
import { ApiConfig } from './config';
import { setupOpenApi } from './openapi/openapi';

/** Builds the api (not yet listening): used by main.ts and by the test suites. */
export function createApiApp(config: ApiConfig): Promise<NestFastifyApplication> {
  return createHttpApp(ApiModule.forRoot(config), {
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    name: 'api',
    globalPrefix: 'api',
    rpc: { url: config.NATS_URL, prefix: config.NATS_PREFIX, queue: 'api' },
    configure: (app) => setupOpenApi(app, config),
  });
}
