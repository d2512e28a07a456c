import {
  BeforeApplicationShutdown,
  Controller,
  DynamicModule,
  Get,
  Header,
  HttpCode,
  Inject,
  Injectable,
  Module,
  Res,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { metricsRegistry } from './metrics';

/** One dependency a service needs before it can take work. */
export interface ReadinessCheck {
  name: string;
  /** Resolves when healthy; rejects (or times out) when not. */
  check(): Promise<void>;
  /** Extra detail for the readiness answer (per-channel state, ...). */
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

/** Flips readiness off as soon as shutdown starts, so load balancers stop sending work. */
@Injectable()
export class Lifecycle implements BeforeApplicationShutdown {
  shuttingDown = false;

  beforeApplicationShutdown(): void {
    this.shuttingDown = true;
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

@ApiExcludeController()
@Controller()
export class HealthController {
  constructor(
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
    private readonly lifecycle: Lifecycle,
  ) {}

  /** Liveness: the process is up and its event loop turns. */
  @Get('healthz')
  @HttpCode(200)
  live(): { status: string } {
    return { status: 'ok' };
  }

  /** Readiness: every dependency answers; 503 with the failing ones otherwise. */
  @Get('readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const results = await Promise.all(
      this.checks.map(async (c) => {
        try {
          await withTimeout(c.check(), 2000, c.name);
          return { name: c.name, status: 'up', ...(c.details?.() ?? {}) };
        } catch (err) {
          return {
            name: c.name,
            status: 'down',
            error: err instanceof Error ? err.message : String(err),
            ...(c.details?.() ?? {}),
          };
        }
      }),
    );
    const ok = !this.lifecycle.shuttingDown && results.every((r) => r.status === 'up');
    const checks = Object.fromEntries(results.map(({ name, ...rest }) => [name, rest]));
    void reply
      .status(ok ? 200 : 503)
      .send({ status: ok ? 'ready' : this.lifecycle.shuttingDown ? 'shutting_down' : 'not_ready', checks });
  }

  @Get('metrics')
  @Header('Cache-Control', 'no-store')
  async metrics(@Res() reply: FastifyReply): Promise<void> {
    void reply.header('Content-Type', metricsRegistry.contentType).send(await metricsRegistry.metrics());
  }
}

/** `/healthz`, `/readyz` and `/metrics` for a service, given its readiness checks as providers. */
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
      exports: [Lifecycle],
    };
  }
}
