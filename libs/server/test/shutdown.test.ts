import { Controller, Get, Module } from '@nestjs/common';
import { createHttpApp, HealthModule, loggingModule } from '@app/server';

@Controller('slow')
class SlowController {
  @Get()
  async slow(): Promise<{ ok: boolean }> {
    await new Promise((r) => setTimeout(r, 500));
    return { ok: true };
  }
}

@Module({
  imports: [loggingModule('shutdown-test', 'silent'), HealthModule.forRoot([])],
  controllers: [SlowController],
})
class SlowModule {}

describe('HTTP shutdown', () => {
  it('answers a keep-alive request in flight, then closes at once instead of waiting out keep-alive', async () => {
    const app = await createHttpApp(SlowModule, { name: 'shutdown-test' });
    await app.listen(0, '127.0.0.1');
    const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    // Open a keep-alive connection first, as channels and clients do.
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const inFlight = fetch(`${url}/slow`);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await app.close();
    const closedIn = Date.now() - started;
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(res.headers.get('connection')).toBe('close');
    // Well under the 72 s keep-alive timeout the old behaviour waited for.
    expect(closedIn).toBeLessThan(5000);
  });
});
