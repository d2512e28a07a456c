// The ports of the local stack (pnpm stack): what each service listens on, the URLs each service is
// given, and the checks made before anything starts, so that a port another program holds is named
// with the setting that moves it instead of being mistaken for the stack's own service.
import { canListen, portAnswers } from '@app/testing';

export const STACK_SERVICES = ['sandbox', 'webhooks', 'gateway', 'queue', 'api'] as const;
export type StackService = (typeof STACK_SERVICES)[number];

const DEFAULT_PORTS: Record<StackService, number> = {
  api: 3000,
  gateway: 3100,
  queue: 3200,
  webhooks: 3300,
  sandbox: 3900,
};
/** Each service's admin listener (/readyz, /metrics) is by default its port + 1000. */
const ADMIN_OFFSET = 1000;
const DEFAULT_POSTGRES_PORT = 54329;
const DEFAULT_NATS_PORT = 4223;

export const PORT_VARIABLE: Record<StackService, string> = {
  api: 'API_PORT',
  gateway: 'GATEWAY_PORT',
  queue: 'QUEUE_PORT',
  webhooks: 'WEBHOOKS_PORT',
  sandbox: 'SANDBOX_PORT',
};
/** The sandbox serves its admin port at its port + 1000 always: SANDBOX_PORT moves both. */
export const ADMIN_PORT_VARIABLE: Record<Exclude<StackService, 'sandbox'>, string> = {
  api: 'API_ADMIN_PORT',
  gateway: 'GATEWAY_ADMIN_PORT',
  queue: 'QUEUE_ADMIN_PORT',
  webhooks: 'WEBHOOKS_ADMIN_PORT',
};

/**
 * The ports the Fetch standard blocks ("bad port"): browsers and Node's fetch() refuse to connect to
 * them. A service's public port must not be one (the demo's requests and the browser could not reach
 * it); an admin port may, as the stack asks /readyz with node:http, which has no such list.
 */
export const FETCH_BLOCKED_PORTS: ReadonlySet<number> = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110,
  111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532,
  540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061,
  6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

export interface StackPorts {
  service: Record<StackService, number>;
  admin: Record<StackService, number>;
  /** The embedded Postgres, when DATABASE_URL is not given. */
  postgres?: number;
  /** The local nats-server, when NATS_URL is not given. */
  nats?: number;
}

/** One port the stack listens on: what listens there, and the setting that moves it. */
export interface StackPort {
  port: number;
  what: string;
  variable: string;
  /** Services listen on every interface, Postgres and NATS on loopback. */
  host: '0.0.0.0' | '127.0.0.1';
}

/** The stack cannot start as configured; each line says why and what to set. */
export class StackRefusal extends Error {
  constructor(readonly lines: string[]) {
    super(lines.join('\n'));
  }
}

function portSetting(env: NodeJS.ProcessEnv, variable: string, fallback: number, problems: string[]): number {
  const text = env[variable];
  if (text === undefined || text === '') return fallback;
  const port = Number(text);
  if (!/^\d+$/.test(text.trim()) || port < 1 || port > 65535) {
    problems.push(`${variable} must be a port number from 1 to 65535 (it is "${text}").`);
    return fallback;
  }
  return port;
}

/** The ports the environment asks for (defaults otherwise), refusing those the stack could not use. */
export function stackPorts(env: NodeJS.ProcessEnv): StackPorts {
  const problems: string[] = [];
  if (env.ADMIN_PORT) {
    problems.push(
      `ADMIN_PORT is one service's setting, and the stack runs five: set ${Object.values(ADMIN_PORT_VARIABLE).join(', ')} instead.`,
    );
  }
  const service = {} as Record<StackService, number>;
  const admin = {} as Record<StackService, number>;
  for (const s of STACK_SERVICES) {
    service[s] = portSetting(env, PORT_VARIABLE[s], DEFAULT_PORTS[s], problems);
    if (FETCH_BLOCKED_PORTS.has(service[s])) {
      problems.push(
        `${PORT_VARIABLE[s]}=${service[s]} is one of the ports browsers and fetch() refuse to connect to (the Fetch standard's blocked ports), so nothing could reach the ${s}: choose another.`,
      );
    }
    const adminDefault = service[s] + ADMIN_OFFSET;
    admin[s] = s === 'sandbox' ? adminDefault : portSetting(env, ADMIN_PORT_VARIABLE[s], adminDefault, problems);
    if (admin[s] > 65535) {
      const setting =
        s === 'sandbox' ? 'a lower SANDBOX_PORT' : `${ADMIN_PORT_VARIABLE[s]} (or a lower ${PORT_VARIABLE[s]})`;
      problems.push(
        `${PORT_VARIABLE[s]}=${service[s]} puts the ${s}'s admin port at ${admin[s]}, beyond 65535: set ${setting}.`,
      );
    }
  }
  const ports: StackPorts = { service, admin };
  if (!env.DATABASE_URL) ports.postgres = portSetting(env, 'EMBEDDED_PG_PORT', DEFAULT_POSTGRES_PORT, problems);
  if (!env.NATS_URL) ports.nats = portSetting(env, 'LOCAL_NATS_PORT', DEFAULT_NATS_PORT, problems);

  const byPort = new Map<number, StackPort[]>();
  for (const p of stackPortList(ports)) byPort.set(p.port, [...(byPort.get(p.port) ?? []), p]);
  for (const [port, users] of byPort) {
    if (users.length > 1) {
      problems.push(
        `port ${port} is asked for twice: ${users.map((u) => `${u.what} (${u.variable})`).join(' and ')}; move one.`,
      );
    }
  }
  if (problems.length > 0) throw new StackRefusal(problems);
  return ports;
}

/** Every port the stack will listen on. */
export function stackPortList(ports: StackPorts): StackPort[] {
  const list: StackPort[] = [];
  for (const s of STACK_SERVICES) {
    list.push({ port: ports.service[s], what: s, variable: PORT_VARIABLE[s], host: '0.0.0.0' });
    list.push({
      port: ports.admin[s],
      what: `${s} admin port`,
      variable: s === 'sandbox' ? PORT_VARIABLE.sandbox : ADMIN_PORT_VARIABLE[s],
      host: '0.0.0.0',
    });
  }
  if (ports.postgres !== undefined) {
    list.push({ port: ports.postgres, what: 'embedded Postgres', variable: 'EMBEDDED_PG_PORT', host: '127.0.0.1' });
  }
  if (ports.nats !== undefined) {
    list.push({ port: ports.nats, what: 'local nats-server', variable: 'LOCAL_NATS_PORT', host: '127.0.0.1' });
  }
  return list;
}

/**
 * Whether nothing else holds the port: it can be bound where the stack binds it, and nothing
 * answers on loopback (over IPv4 or IPv6, which `localhost` may reach first).
 */
export async function portIsFree(port: number, host: string): Promise<boolean> {
  if (!(await canListen(port, host))) return false;
  const [v4, v6] = await Promise.all([portAnswers(port, 1000, '127.0.0.1'), portAnswers(port, 1000, '::1')]);
  return !v4 && !v6;
}

/** The stack's ports that another program holds now. */
export async function portsInUse(list: StackPort[]): Promise<StackPort[]> {
  const taken: StackPort[] = [];
  for (const p of list) if (!(await portIsFree(p.port, p.host))) taken.push(p);
  return taken;
}

/** A free port near `from` for `p` (a service's, with its admin port free too), none of `avoid`. */
async function nearbyFreePort(p: StackPort, avoid: Set<number>, withAdmin: boolean): Promise<number | undefined> {
  for (let port = p.port + 10; port < Math.min(p.port + 2000, 65535 - ADMIN_OFFSET); port += 10) {
    const wanted = withAdmin ? [port, port + ADMIN_OFFSET] : [port];
    if (wanted.some((w) => avoid.has(w) || FETCH_BLOCKED_PORTS.has(w))) continue;
    if ((await Promise.all(wanted.map((w) => portIsFree(w, p.host)))).every(Boolean)) {
      wanted.forEach((w) => avoid.add(w));
      return port;
    }
  }
  return undefined;
}

/**
 * What to tell the user about the ports another program holds: each port, what of the stack
 * wanted it, and one command line that moves them all to ports free now.
 */
export async function portsInUseRefusal(
  taken: StackPort[],
  ports: StackPorts,
  env: NodeJS.ProcessEnv,
): Promise<StackRefusal> {
  const avoid = new Set(stackPortList(ports).map((p) => p.port));
  const lines: string[] = [];
  const moves = new Map<string, number>();
  for (const p of taken) {
    const alternative =
      p.variable === 'EMBEDDED_PG_PORT'
        ? ' (or set DATABASE_URL to a Postgres of yours)'
        : p.variable === 'LOCAL_NATS_PORT'
          ? ' (or set NATS_URL to a nats-server -js of yours)'
          : '';
    lines.push(
      `${p.what}: port ${p.port} is already in use by another program; stop it, or move the stack's with ${p.variable}=<port>${alternative}.`,
    );
    const service = STACK_SERVICES.find((s) => PORT_VARIABLE[s] === p.variable);
    const owner = STACK_SERVICES.find((s) => s !== 'sandbox' && ADMIN_PORT_VARIABLE[s] === p.variable);
    // An admin port left at its default moves with its service's port.
    if (moves.has(p.variable) || (owner && !env[p.variable] && moves.has(PORT_VARIABLE[owner]))) continue;
    const free = await nearbyFreePort(p, avoid, service !== undefined);
    if (free !== undefined) moves.set(p.variable, free);
  }
  if (moves.size > 0) {
    lines.push(
      `For example, with ports free now: ${[...moves].map(([variable, port]) => `${variable}=${port}`).join(' ')} pnpm stack`,
    );
  }
  lines.push('Nothing was started.');
  return new StackRefusal(lines);
}

/** The URL of each service as the others and the user reach it. */
export function stackUrls(ports: StackPorts): Record<StackService, string> {
  return Object.fromEntries(STACK_SERVICES.map((s) => [s, `http://localhost:${ports.service[s]}`])) as Record<
    StackService,
    string
  >;
}

/**
 * The settings every service is given: its own port and every URL of another service, all from the
 * ports chosen (a URL the environment sets explicitly is kept), so a stack moved off the default
 * ports never calls a default one.
 */
export function serviceUrlsEnv(ports: StackPorts, env: NodeJS.ProcessEnv): Record<string, string> {
  const urls = stackUrls(ports);
  return {
    ...Object.fromEntries(STACK_SERVICES.map((s) => [PORT_VARIABLE[s], String(ports.service[s])])),
    API_PUBLIC_URL: env.API_PUBLIC_URL ?? urls.api,
    GATEWAY_PUBLIC_URL: env.GATEWAY_PUBLIC_URL ?? urls.gateway,
    SANDBOX_URL: urls.sandbox,
    WHATSAPP_GRAPH_URL: env.WHATSAPP_GRAPH_URL ?? urls.sandbox,
    TELEGRAM_API_URL: env.TELEGRAM_API_URL ?? `${urls.sandbox}/telegram`,
    MAX_API_URL: env.MAX_API_URL ?? `${urls.sandbox}/max`,
  };
}
