import { loadConfigOrExit } from '@app/config';
import { listen } from '@app/server';
import { QueueConfig } from './config';
import { createQueueApp } from './queue.app';

async function main(): Promise<void> {
  const config = loadConfigOrExit(QueueConfig, 'queue');
  const app = await createQueueApp(config);
  await listen(app, config.QUEUE_PORT, config.ADMIN_PORT);
}

void main();
