import { loadConfigOrExit } from '@app/config';
import { listen } from '@app/server';
import { createApiApp } from './api.app';
import { ApiConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfigOrExit(ApiConfig, 'api');
  const app = await createApiApp(config);
  await listen(app, config.API_PORT, config.ADMIN_PORT);
}

void main();
