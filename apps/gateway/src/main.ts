import { loadConfigOrExit } from '@app/config';
import { listen } from '@app/server';
import { GatewayConfig } from './config';
import { createGatewayApp } from './gateway.app';

async function main(): Promise<void> {
  const config = loadConfigOrExit(GatewayConfig, 'gateway');
  const app = await createGatewayApp(config);
  await listen(app, config.GATEWAY_PORT, config.ADMIN_PORT);
}

void main();
