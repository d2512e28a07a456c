import { Logger } from '@nestjs/common';
import { PeriodicJob } from './periodic-job';

describe('PeriodicJob', () => {
  it('a poke during a pass has one more pass follow it; pokes meanwhile are one, not many', async () => {
    let passes = 0;
    let release!: () => void;
    const job = new PeriodicJob(
      'test',
      0,
      async () => {
        passes++;
        if (passes === 1) await new Promise<void>((r) => (release = r));
      },
      new Logger('test'),
    );
    job.poke();
    expect(passes).toBe(1);
    job.poke();
    job.poke();
    release();
    await job.stop();
    expect(passes).toBe(2);
  });

  it('a poke with no pass under way runs one at once; a failing pass is logged, not thrown', async () => {
    const logger = new Logger('test');
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    let passes = 0;
    const job = new PeriodicJob(
      'failing',
      0,
      async () => {
        passes++;
        throw new Error('down');
      },
      logger,
    );
    job.poke();
    await job.stop();
    expect(passes).toBe(1);
    expect(warn).toHaveBeenCalledWith(expect.anything(), 'failing failed');
  });
});
