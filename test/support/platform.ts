import { INestApplication } from '@nestjs/common';
import { loadChannelModules, loadConfig } from '@app/config';
import { listen } from '@app/server';
import { startTestInfra, TestInfra, TestInfraOptions } from '@app/testing';
import { migratedTemplate } from './migrated-template';
import { createApiApp } from '../../apps/api/src/api.app';
import { ApiConfig } from '../../apps/api/src/config';
import { GatewayConfig } from '../../apps/gateway/src/config';
import { createGatewayApp } from '../../apps/gateway/src/gateway.app';
import { AccountBearerStrategy } from '../../apps/gateway/src/accounts/account-bearer.strategy';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { BearerStrategy } from '../../apps/api/src/auth/bearer.strategy';
import { UsersRepository } from '../../apps/api/src/users/users.repository';
import { QueueConfig } from '../../apps/queue/src/config';
import { createQueueApp } from '../../apps/queue/src/queue.app';
import { SandboxConfig } from '../../apps/sandbox/src/config';
import { createSandboxApp } from '../../apps/sandbox/src/sandbox.app';
import { WebhooksConfig } from '../../apps/webhooks/src/config';
import { createWebhooksApp } from '../../apps/webhooks/src/webhooks.app';
import { Balancer, startBalancer } from './balancer';
import { BALANCED_SERVICES, platformEnv, PORT_VARIABLES, Replicas, ServiceName } from './platform-env';

export { freePort, platformEnv } from './platform-env';
export { parseReplicas } from './platform-env';
export type { Replicas, ServiceName } from './platform-env';

export interface Platform {
  infra: TestInfra;
  /** Each service's public URL: the balancer's in front of a service run as several replicas. */
  urls: Record<ServiceName, string>;
  /** Each service's admin listener (`/readyz`, `/metrics`), never exposed by the public Service (the first replica's). */
  adminUrls: Record<ServiceName, string>;
  /** Each started service's replicas: their own public and admin URLs, in replica order. */
  replicaUrls: Partial<Record<ServiceName, { url: string; adminUrl: string }[]>>;
  /** The round-robin balancer in front of the api's and the gateway's replicas, when there are several. */
  balancers: Partial<Record<ServiceName, Balancer>>;
  /** The environment every service was started with (ports, URLs, database, prefix). */
  env: Record<string, string>;
  /** Each running service's first replica. */
  apps: Partial<Record<ServiceName, INestApplication>>;
  /** Each running service's replicas, in replica order (a stopped replica is undefined). */
  replicaApps: Partial<Record<ServiceName, (INestApplication | undefined)[]>>;
  /**
   * Stops one service, every replica or only replica `replica` (to test crashes and restarts);
   * `start` brings it back with the same env.
   */
  stopService(name: ServiceName, replica?: number): Promise<void>;
  startService(name: ServiceName, replica?: number): Promise<void>;
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
 * Passport keeps its strategies in one registry per process, by name: each in-process replica's
 * strategy replaces the previous one's, so every replica checks tokens with the last one started
 * (and its database pool). When that replica stops, a strategy on a running replica's repository
 * is registered in its place (constructing one registers it). Deployed, each replica is its own process.
 */
const PROCESS_WIDE_STRATEGIES: Partial<Record<ServiceName, (app: INestApplication) => void>> = {
  api: (app) => new BearerStrategy(app.get(UsersRepository)),
  gateway: (app) => new AccountBearerStrategy(app.get(AccountsRepository)),
};

/**
 * Boots the named services in this process against the suite's own database and stream prefix,
 * each on a free port, wired to each other as in the local stack. `env` overrides any variable
 * (compressed retry schedules, sandbox rules, ...). `replicas` runs a service as several instances
 * (each its own Nest application, connections, port and admin port, as a pod is): the api's and the
 * gateway's behind a round-robin balancer at `urls.api` / `urls.gateway`, which is also where the
 * services and the sandbox's callbacks reach them.
 */
export async function startPlatform(opts: {
  suite: string;
  services: ServiceName[];
  env?: Record<string, string>;
  topology?: TestInfraOptions['topology'];
  replicas?: Replicas;
}): Promise<Platform> {
  // As the stack's NATS setup step does: channels CHANNEL_MODULES adds get their consumers too.
  loadChannelModules({ ...process.env, ...opts.env });
  const infra = await startTestInfra({
    suite: opts.suite,
    topology: opts.topology,
    template: await migratedTemplate(),
  });
  const { urls, adminUrls, env, replicaPorts } = await platformEnv(infra, opts.env, opts.replicas);
  const apps: Partial<Record<ServiceName, INestApplication>> = {};
  const replicaApps: Partial<Record<ServiceName, (INestApplication | undefined)[]>> = {};
  const replicaUrls: Platform['replicaUrls'] = {};
  const balancers: Partial<Record<ServiceName, Balancer>> = {};
  const startReplica = async (name: ServiceName, i: number) => {
    const { port, adminPort } = replicaPorts[name][i];
    const { app } = await builders[name]({ ...process.env, ...env, [PORT_VARIABLES[name]]: String(port) });
    await listen(app, port, adminPort, '127.0.0.1');
    (replicaApps[name] ??= [])[i] = app;
    apps[name] = replicaApps[name].find(Boolean);
    balancers[name]?.setReady(i, true);
  };
  const replicasOf = (name: ServiceName, replica?: number) =>
    replica === undefined ? replicaPorts[name].map((_, i) => i) : [replica];
  const startService = async (name: ServiceName, replica?: number) => {
    for (const i of replicasOf(name, replica)) await startReplica(name, i);
  };
  const stopReplica = async (name: ServiceName, i: number) => {
    const app = replicaApps[name]?.[i];
    if (!app) return;
    // Out of the balancer's rotation first, as a pod that stops passes no readiness check.
    balancers[name]?.setReady(i, false);
    replicaApps[name]![i] = undefined;
    apps[name] = replicaApps[name]!.find(Boolean);
    if (!apps[name]) delete apps[name];
    // A shutdown that hangs is a defect of that service: name it instead of timing out silently.
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => {
      const which = replicaPorts[name].length > 1 ? `${name} replica ${i}` : name;
      timer = setTimeout(() => reject(new Error(`${which} did not shut down within 15 s`)), 15_000);
    });
    try {
      await Promise.race([app.close(), hung]);
    } finally {
      clearTimeout(timer);
    }
    if (apps[name]) PROCESS_WIDE_STRATEGIES[name]?.(apps[name]);
  };
  const stopService = async (name: ServiceName, replica?: number) => {
    for (const i of replicasOf(name, replica)) await stopReplica(name, i);
  };
  const stopBalancers = async () => {
    for (const name of Object.keys(balancers) as ServiceName[]) await balancers[name]!.close();
  };
  // The sandbox first: the others may call it while starting.
  const order: ServiceName[] = ['sandbox', 'webhooks', 'gateway', 'queue', 'api'];
  try {
    for (const name of order.filter((n) => opts.services.includes(n))) {
      replicaUrls[name] = replicaPorts[name].map(({ port, adminPort }) => ({
        url: `http://127.0.0.1:${port}`,
        adminUrl: `http://127.0.0.1:${adminPort}`,
      }));
      // The balancer listens before the replicas start: a callback sent to it meanwhile gets a 502 and is retried.
      if (replicaPorts[name].length > 1 && BALANCED_SERVICES.includes(name)) {
        balancers[name] = await startBalancer(
          replicaUrls[name].map((r) => r.url),
          Number(new URL(urls[name]).port),
        );
      }
      await startService(name);
    }
  } catch (err) {
    for (const name of [...order].reverse()) await stopService(name).catch(() => undefined);
    await stopBalancers();
    await infra.stop();
    throw err;
  }
  return {
    infra,
    urls,
    adminUrls,
    replicaUrls,
    balancers,
    env,
    apps,
    replicaApps,
    startService,
    stopService,
    async stop() {
      try {
        for (const name of [...order].reverse()) await stopService(name);
      } finally {
        await stopBalancers();
        await infra.stop();
      }
    },
  };
}
