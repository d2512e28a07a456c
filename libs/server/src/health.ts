import {
  BeforeApplicationShutdown,
  Controller,
  DynamicModule,
  Get,
  HttpCode,
  INestApplication,
  Injectable,
  Logger,
  Module,
  OnApplicationShutdown,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { createServer, Server, ServerResponse } from 'node:http';
import { metricsRegistry } from './metrics';
import { problemForStatus } from './problem';

/** One dependency a service needs before it can take work. */
export interface ReadinessCheck {
  name: string;
  /** Resolves when healthy; rejects (or times out) when not. */
  check(): Promise<void>;
  /**
   * Extra detail for the readiness answer (per-channel state, ...). A `status: 'degraded'` in it
   * shows trouble that the service works around (one channel failing): the check is reported
   * degraded, and the service stays ready.
   */
  details?(): Record<string, unknown>;
}

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

/** A provider that builds one readiness check from injected dependencies. */
export interface ReadinessProvider {
  provide: symbol;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  useFactory: (...deps: any[]) => ReadinessCheck;
  inject: (symbol | Function)[];
}

/**
 * Flips readiness off as soon as shutdown starts, so load balancers stop sending work; closes the
 * admin listener last, once everything else has stopped.
 */
@Injectable()
export class Lifecycle implements BeforeApplicationShutdown, OnApplicationShutdown {
  shuttingDown = false;
  adminServer?: Server;

  beforeApplicationShutdown(): void {
    this.shuttingDown = true;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.adminServer;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, name: string): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`${name} did not answer in ${ms} ms`)), ms).unref(),
    ),
  ]);
}

export interface ReadinessReport {
  ok: boolean;
  body: { status: 'ready' | 'not_ready' | 'shutting_down'; checks: Record<string, Record<string, unknown>> };
}

const readinessLog = new Logger('Readiness');

/**
 * Runs every check. The answer names the failing dependencies but never their error text (a
 * driver's message can carry host names, users or addresses); that goes to the log instead.
 */
export async function readinessReport(checks: ReadinessCheck[], shuttingDown: boolean): Promise<ReadinessReport> {
  const results = await Promise.all(
    checks.map(async (c) => {
      try {
        await withTimeout(c.check(), 2000, c.name);
        return { name: c.name, status: 'up', ...(c.details?.() ?? {}) };
      } catch (err) {
        readinessLog.warn(`${c.name} is down: ${err instanceof Error ? err.message : String(err)}`);
        return { name: c.name, status: 'down', ...(c.details?.() ?? {}) };
      }
    }),
  );
  const ok = !shuttingDown && results.every((r) => r.status !== 'down');
  const status = ok ? 'ready' : shuttingDown ? 'shutting_down' : 'not_ready';
  return { ok, body: { status, checks: Object.fromEntries(results.map(({ name, ...rest }) => [name, rest])) } };
}

/** Liveness on the public port: the process is up and its event loop turns. */
@ApiExcludeController()
@Controller()
export class HealthController {
  @Get('healthz')
  @HttpCode(200)
  live(): { status: string } {
    return { status: 'ok' };
  }
}

/**
 * The admin listener: `/healthz`, `/readyz` and `/metrics` on a port of their own, which the
 * Service behind the Ingress never exposes (probes and Prometheus reach the pod directly). It
 * keeps answering while the app shuts down, so readiness is seen to flip to 503, and closes with it.
 */
export async function startAdminServer(app: INestApplication, port: number, host: string): Promise<Server> {
  const checks = app.get<ReadinessCheck[]>(READINESS_CHECKS, { strict: false });
  const lifecycle = app.get(Lifecycle, { strict: false });
  const send = (res: ServerResponse, status: number, type: string, body: string) => {
    res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
    res.end(body);
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return send(res, 405, 'application/problem+json', problemBody(405));
    const answer = async () => {
      if (path === '/healthz') return send(res, 200, 'application/json', JSON.stringify({ status: 'ok' }));
      if (path === '/readyz') {
        const report = await readinessReport(checks, lifecycle.shuttingDown);
        return send(res, report.ok ? 200 : 503, 'application/json', JSON.stringify(report.body));
      }
      if (path === '/metrics') return send(res, 200, metricsRegistry.contentType, await metricsRegistry.metrics());
      send(res, 404, 'application/problem+json', problemBody(404));
    };
    answer().catch(() => send(res, 500, 'application/problem+json', problemBody(500)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  lifecycle.adminServer = server;
  return server;
}

function problemBody(status: number): string {
  return JSON.stringify(problemForStatus(status).toBody());
}

/** `/healthz` for a service, and the readiness checks (as providers) its admin listener runs. */
@Module({})
export class HealthModule {
  static forRoot(checkProviders: ReadinessProvider[] = []): DynamicModule {
    return {
      module: HealthModule,
      providers: [
        Lifecycle,
        ...checkProviders,
        {
          provide: READINESS_CHECKS,
          useFactory: (...checks: ReadinessCheck[]) => checks,
          inject: checkProviders.map((p) => p.provide),
        },
      ],
      controllers: [HealthController],
      exports: [Lifecycle, READINESS_CHECKS],
    };
  }
}
