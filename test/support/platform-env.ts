import { freePort, TestInfra } from '@app/testing';

export { freePort };

export type ServiceName = 'api' | 'gateway' | 'queue' | 'webhooks' | 'sandbox';

/** How many instances of each service run (1 where not named); the sandbox is one emulator. */
export type Replicas = Partial<Record<Exclude<ServiceName, 'sandbox'>, number>>;

/** The variable each service takes its public port from. */
export const PORT_VARIABLES: Record<ServiceName, string> = {
  api: 'API_PORT',
  gateway: 'GATEWAY_PORT',
  queue: 'QUEUE_PORT',
  webhooks: 'WEBHOOKS_PORT',
  sandbox: 'SANDBOX_PORT',
};

/** Services whose replicas clients reach through one address (the cluster's Service; in tests and benches a balancer). */
export const BALANCED_SERVICES: ServiceName[] = ['api', 'gateway'];

/**
 * Parses a replica count per service, as `api:3,gateway:2,webhooks:2,queue:2` (a service not named
 * runs once); throws naming the bad entry.
 */
export function parseReplicas(spec: string | undefined): Replicas {
  const replicas: Replicas = {};
  for (const entry of (spec ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const m = /^(api|gateway|queue|webhooks):([1-9][0-9]?)$/.exec(entry);
    if (!m) throw new Error(`replicas: "${entry}" is not <api|gateway|queue|webhooks>:<1-99>`);
    replicas[m[1] as keyof Replicas] = Number(m[2]);
  }
  return replicas;
}

/** One instance's ports: where it serves and where its admin listener (`/readyz`, `/metrics`) is. */
export interface ReplicaPorts {
  port: number;
  adminPort: number;
}

const toUrls = (ports: Record<ServiceName, number>) =>
  Object.fromEntries(Object.entries(ports).map(([k, p]) => [k, `http://127.0.0.1:${p}`])) as Record<
    ServiceName,
    string
  >;

/**
 * Free ports for every service (public and admin) and the environment that wires them to each
 * other, as in the local stack. Each service's ADMIN_PORT is given to it by its starter.
 */
export async function platformEnv(
  infra: TestInfra,
  overrides: Record<string, string> = {},
  replicas: Replicas = {},
): Promise<{
  urls: Record<ServiceName, string>;
  adminPorts: Record<ServiceName, number>;
  adminUrls: Record<ServiceName, string>;
  env: Record<string, string>;
  /**
   * Each service's instances. One instance takes the service's port; a balanced service run as
   * several leaves that port to its balancer and gives every instance a port of its own.
   */
  replicaPorts: Record<ServiceName, ReplicaPorts[]>;
}> {
  const names: ServiceName[] = ['api', 'gateway', 'queue', 'webhooks', 'sandbox'];
  const ports = {} as Record<ServiceName, number>;
  const adminPorts = {} as Record<ServiceName, number>;
  for (const name of names) ports[name] = await freePort();
  for (const name of names) adminPorts[name] = await freePort();
  const urls = toUrls(ports);
  const env: Record<string, string> = {
    ...infra.env,
    API_PORT: String(ports.api),
    GATEWAY_PORT: String(ports.gateway),
    QUEUE_PORT: String(ports.queue),
    WEBHOOKS_PORT: String(ports.webhooks),
    SANDBOX_PORT: String(ports.sandbox),
    API_PUBLIC_URL: urls.api,
    GATEWAY_PUBLIC_URL: urls.gateway,
    SANDBOX_URL: urls.sandbox,
    WHATSAPP_GRAPH_URL: urls.sandbox,
    TELEGRAM_API_URL: `${urls.sandbox}/telegram`,
    MAX_API_URL: `${urls.sandbox}/max`,
    // Test receivers (webhook endpoints, the sandbox's course platform and media) listen on loopback over plain http.
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
    ALLOW_PRIVATE_TARGETS: 'true',
    // The sandbox retries a callback the gateway refused (a service still starting) within the
    // suites' waits, not on the minutes-long schedule of the local stack.
    SANDBOX_WEBHOOK_RETRY_FIRST_DELAY_MS: '100',
    SANDBOX_WEBHOOK_RETRY_MAX_DELAY_MS: '1000',
    ...overrides,
  };
  const replicaPorts = {} as Record<ServiceName, ReplicaPorts[]>;
  for (const name of names) {
    const count = name === 'sandbox' ? 1 : (replicas[name] ?? 1);
    const own = count > 1 && BALANCED_SERVICES.includes(name);
    replicaPorts[name] = [];
    for (let i = 0; i < count; i++) {
      replicaPorts[name].push({
        port: i === 0 && !own ? ports[name] : await freePort(),
        adminPort: i === 0 ? adminPorts[name] : await freePort(),
      });
    }
  }
  return { urls, adminPorts, adminUrls: toUrls(adminPorts), env, replicaPorts };
}
