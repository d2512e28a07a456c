import { loadConfigOrExit } from '@app/config';
import { listen } from '@app/server';
import { WebhooksConfig } from './config';
import { createWebhooksApp } from './webhooks.app';

async function main(): Promise<void> {
  const config = loadConfigOrExit(WebhooksConfig, 'webhooks');
  const app = await createWebhooksApp(config);
  await listen(app, config.WEBHOOKS_PORT, config.ADMIN_PORT);
}

void main();
