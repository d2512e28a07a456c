import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '@app/server';
import { GatewayModule } from './app.module';
import { GatewayConfig } from './config';
import { installConsole } from './console/console-web';
import { setupGatewayOpenApi } from './openapi/openapi';

/** Builds the gateway (not yet listening): used by main.ts and by the test suites. */
export function createGatewayApp(config: GatewayConfig): Promise<NestFastifyApplication> {
  return createHttpApp(GatewayModule.forRoot(config), {
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    name: 'gateway',
    configure: (app) => {
      setupGatewayOpenApi(app, config);
      installConsole(app, config);
    },
    rpc: { url: config.NATS_URL, prefix: config.NATS_PREFIX, queue: 'gateway' },
  });
}
