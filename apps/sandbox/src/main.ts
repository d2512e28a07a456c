import { loadConfigOrExit } from '@app/config';
import { listen } from '@app/server';
import { SandboxConfig } from './config';
import { createSandboxApp } from './sandbox.app';

async function main(): Promise<void> {
  const config = loadConfigOrExit(SandboxConfig, 'sandbox');
  const app = await createSandboxApp(config);
  await listen(app, config.SANDBOX_PORT);
}

void main();
