import { INestApplication } from '@nestjs/common';
import { loadConfig } from '@app/config';
import { migrateSchema } from '@app/database';
import { listen } from '@app/server';
import { startTestInfra, TestInfra, TestInfraOptions } from '@app/testing';
import { createApiApp } from '../../apps/api/src/api.app';
import { ApiConfig } from '../../apps/api/src/config';
import { GatewayConfig } from '../../apps/gateway/src/config';
import { createGatewayApp } from '../../apps/gateway/src/gateway.app';
import { QueueConfig } from '../../apps/queue/src/config';
import { createQueueApp } from '../../apps/queue/src/queue.app';
import { SandboxConfig } from '../../apps/sandbox/src/config';
import { createSandboxApp } from '../../apps/sandbox/src/sandbox.app';
import { WebhooksConfig } from '../../apps/webhooks/src/config';
import { createWebhooksApp } from '../../apps/webhooks/src/webhooks.app';
import { ALL_SCHEMAS } from '../../scripts/schemas';
import { platformEnv, ServiceName } from './platform-env';

export { freePort, platformEnv } from './platform-env';
export type { ServiceName } from './platform-env';

export interface Platform {
  infra: TestInfra;
  urls: Record<ServiceName, string>;
  /** Each service's admin listener (`/readyz`, `/metrics`), never exposed by the public Service. */
  adminUrls: Record<ServiceName, string>;
  /** The environment every service was started with (ports, URLs, database, prefix). */
  env: Record<string, string>;
  apps: Partial<Record<ServiceName, INestApplication>>;
  /** Stops one service (to test crashes and restarts); `start` brings it back with the same env. */
  stopService(name: ServiceName): Promise<void>;
  startService(name: ServiceName): Promise<void>;
  stop(): Promise<void>;
}

const builders: Record<ServiceName, (env: NodeJS.ProcessEnv) => Promise<{ app: INestApplication; port: number }>> = {
  api: async (env) => {
    const c = loadConfig(ApiConfig, env);
    return { app: await createApiApp(c), port: c.API_PORT };
  },
  gateway: async (env) => {
    const c = loadConfig(GatewayConfig, env);
    return { app: await createGatewayApp(c), port: c.GATEWAY_PORT };
  },
  queue: async (env) => {
    const c = loadConfig(QueueConfig, env);
    return { app: await createQueueApp(c), port: c.QUEUE_PORT };
  },
  webhooks: async (env) => {
    const c = loadConfig(WebhooksConfig, env);
    return { app: await createWebhooksApp(c), port: c.WEBHOOKS_PORT };
  },
  sandbox: async (env) => {
    const c = loadConfig(SandboxConfig, env);
    return { app: await createSandboxApp(c), port: c.SANDBOX_PORT };
  },
};

/**
 * Boots the named services in this process against the suite's own database and stream prefix,
 * each on a free port, wired to each other as in the local stack. `env` overrides any variable
 * (compressed retry schedules, sandbox rules, ...).
 */
export async function startPlatform(opts: {
  suite: string;
  services: ServiceName[];
  env?: Record<string, string>;
  topology?: TestInfraOptions['topology'];
}): Promise<Platform> {
  const infra = await startTestInfra({ suite: opts.suite, topology: opts.topology });
  for (const def of ALL_SCHEMAS) await migrateSchema(infra.databaseUrl, def);
  const { urls, adminPorts, adminUrls, env } = await platformEnv(infra, opts.env);
  const apps: Partial<Record<ServiceName, INestApplication>> = {};
  const startService = async (name: ServiceName) => {
    const { app, port } = await builders[name]({ ...process.env, ...env });
    await listen(app, port, adminPorts[name], '127.0.0.1');
    apps[name] = app;
  };
  const stopService = async (name: ServiceName) => {
    const app = apps[name];
    delete apps[name];
    if (!app) return;
    // A shutdown that hangs is a defect of that service: name it instead of timing out silently.
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${name} did not shut down within 15 s`)), 15_000);
    });
    try {
      await Promise.race([app.close(), hung]);
    } finally {
      clearTimeout(timer);
    }
  };
  // The sandbox first: the others may call it while starting.
  const order: ServiceName[] = ['sandbox', 'webhooks', 'gateway', 'queue', 'api'];
  try {
    for (const name of order.filter((n) => opts.services.includes(n))) await startService(name);
  } catch (err) {
    for (const name of Object.keys(apps) as ServiceName[]) await stopService(name);
    await infra.stop();
    throw err;
  }
  return {
    infra,
    urls,
    adminUrls,
    env,
    apps,
    startService,
    stopService,
    async stop() {
      for (const name of [...order].reverse()) await stopService(name);
      await infra.stop();
    },
  };
}
