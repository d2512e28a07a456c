import { Controller, Get, Injectable, Logger, Module, Query } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { PinoLogger } from 'nestjs-pino';
import { Writable } from 'node:stream';
import { createHttpApp, loggingModule } from '@app/server';

/** Every line a service's logger writes, parsed. */
class Lines extends Writable {
  readonly all: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _: string, done: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) if (line) this.all.push(JSON.parse(line));
    done();
  }
}

@Injectable()
class Worker {
  private readonly logger = new Logger('Worker');
  constructor(private readonly pino: PinoLogger) {}

  async work(tag: string, pause: number, assign: boolean): Promise<void> {
    await new Promise((r) => setTimeout(r, pause));
    if (assign) this.pino.assign({ tenant: `tenant-${tag}` });
    this.logger.warn({ tag }, 'worked');
  }
}

@Controller('work')
class WorkController {
  constructor(private readonly worker: Worker) {}

  @Get()
  async work(@Query('tag') tag: string, @Query('pause') pause = '0', @Query('assign') assign?: string) {
    if (tag) await this.worker.work(tag, Number(pause), assign === 'yes');
    return { ok: true };
  }
}

async function start(level: string): Promise<{ app: NestFastifyApplication; url: string; lines: Lines }> {
  const lines = new Lines();
  @Module({
    imports: [loggingModule('logging-test', level, { destination: lines })],
    controllers: [WorkController],
    providers: [Worker],
  })
  class LoggingTestModule {}
  const app = await createHttpApp(LoggingTestModule, { name: 'logging-test' });
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1'), lines };
}

const requestOf = (line: Record<string, unknown>) => (line.req as { id?: string } | undefined)?.id;

const get = (url: string, path: string, requestId: string) =>
  fetch(`${url}${path}`, { headers: { 'x-request-id': requestId } }).then((r) => r.status);

describe('request logging', () => {
  it('above info, a line logged while a request is handled carries that request, even among concurrent ones', async () => {
    const { app, url, lines } = await start('warn');
    try {
      const statuses = await Promise.all([
        get(url, '/work?tag=a&pause=60', 'req-a'),
        get(url, '/work?tag=b&pause=10', 'req-b'),
        get(url, '/work?tag=c&pause=30&assign=yes', 'req-c'),
        get(url, '/work', 'req-quiet'),
      ]);
      expect(statuses).toEqual([200, 200, 200, 200]);
      const worked = lines.all.filter((l) => l.msg === 'worked');
      expect(worked.map((l) => [l.tag, requestOf(l)]).sort()).toEqual([
        ['a', 'req-a'],
        ['b', 'req-b'],
        ['c', 'req-c'],
      ]);
      for (const line of worked) {
        expect(line).toMatchObject({ service: 'logging-test', req: { method: 'GET', url: '/work' } });
      }
      // assign adds its fields to the request's later lines only.
      expect(worked.find((l) => l.tag === 'c')).toMatchObject({ tenant: 'tenant-c' });
      expect(worked.filter((l) => 'tenant' in l)).toHaveLength(1);
      // No access lines above info, and nothing at all for the request that logged nothing.
      expect(lines.all.filter((l) => requestOf(l) === 'req-quiet')).toEqual([]);
      expect(lines.all.filter((l) => l.msg === 'request completed')).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('at info, every request has its access line, and lines logged while handling it carry it', async () => {
    const { app, url, lines } = await start('info');
    try {
      expect(await get(url, '/work?tag=d&pause=5', 'req-d')).toBe(200);
      expect(await get(url, '/work', 'req-e')).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
      expect(lines.all.find((l) => l.msg === 'worked')).toMatchObject({ tag: 'd', req: { id: 'req-d' } });
      const access = lines.all.filter((l) => l.msg === 'request completed');
      expect(
        access.map((l) => [requestOf(l), (l.req as { url: string }).url, (l.res as { status: number }).status]),
      ).toEqual([
        ['req-d', '/work', 200],
        ['req-e', '/work', 200],
      ]);
    } finally {
      await app.close();
    }
  });
});
