import { freePort, TestInfra } from '@app/testing';

export { freePort };

export type ServiceName = 'api' | 'gateway' | 'queue' | 'webhooks' | 'sandbox';

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
): Promise<{
  urls: Record<ServiceName, string>;
  adminPorts: Record<ServiceName, number>;
  adminUrls: Record<ServiceName, string>;
  env: Record<string, string>;
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
  return { urls, adminPorts, adminUrls: toUrls(adminPorts), env };
}
