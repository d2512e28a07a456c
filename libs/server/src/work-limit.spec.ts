import { ServiceUnavailableProblem } from './problem';
import { WorkLimit } from './work-limit';

const limit = () =>
  new WorkLimit({ what: 'exports', atOnce: 2, waiting: 1, waitMs: 60_000, perKey: 2, retryAfterSeconds: 7 });

describe('WorkLimit', () => {
  it('runs as many at once as it may, lets one more wait, and refuses the next at once with 503 and Retry-After', async () => {
    const work = limit();
    const a = await work.enter('a');
    await work.enter('b');
    let third: (() => void) | undefined;
    const waiting = work.enter('c').then((release) => (third = release));
    await Promise.resolve();
    expect(third).toBeUndefined();
    let refused: unknown;
    try {
      void work.enter('d');
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(ServiceUnavailableProblem);
    expect((refused as ServiceUnavailableProblem).headers).toEqual({ 'Retry-After': '7' });
    a();
    a(); // a second release of the same place frees nothing more
    await waiting;
    expect(third).toBeDefined();
    expect(work.entered).toBe(2);
  });

  it("refuses a key past its own number while others' places are free", async () => {
    const work = new WorkLimit({ what: 'x', atOnce: 10, waiting: 10, waitMs: 1000, perKey: 1, retryAfterSeconds: 1 });
    const first = await work.enter('tenant');
    expect(() => work.enter('tenant')).toThrow(/already has 1/);
    await expect(work.run('other', async () => 'ran')).resolves.toBe('ran');
    first();
    await expect(work.run('tenant', async () => 'ran')).resolves.toBe('ran');
    expect(work.entered).toBe(0);
  });

  it('gives the place back when the work fails', async () => {
    const work = limit();
    await expect(
      work.run('a', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(work.entered).toBe(0);
  });
});
