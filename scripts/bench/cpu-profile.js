// Profiles a service's CPU for a chosen stretch of a benchmark: preloaded with
// NODE_OPTIONS="--require scripts/bench/cpu-profile.js" and CPU_PROFILE_DIR set, each service process
// (apps/<name>/src/main.js of the build the benchmarks run, or main.ts run from source) starts V8's
// sampling profiler once CPU_PROFILE_DIR/go exists and writes <name>-<pid>.cpuprofile there once
// CPU_PROFILE_DIR/stop exists. Services of a benchmark are killed
// hard, so `--cpu-prof` (written at a clean exit) would never write its file.
const dir = process.env.CPU_PROFILE_DIR;
const entry = /apps\/([a-z-]+)\/src\/main\.[jt]s$/.exec(process.argv[1] ?? '');
if (dir && entry) {
  const { existsSync, writeFileSync } = require('node:fs');
  const { join } = require('node:path');
  const { Session } = require('node:inspector');
  const session = new Session();
  session.connect();
  let state = 'waiting';
  const timer = setInterval(() => {
    if (state === 'waiting' && existsSync(join(dir, 'go'))) {
      state = 'profiling';
      session.post('Profiler.enable', () =>
        session.post('Profiler.setSamplingInterval', { interval: 500 }, () => session.post('Profiler.start')),
      );
    } else if (state === 'profiling' && existsSync(join(dir, 'stop'))) {
      state = 'done';
      clearInterval(timer);
      session.post('Profiler.stop', (err, res) => {
        if (!err) writeFileSync(join(dir, `${entry[1]}-${process.pid}.cpuprofile`), JSON.stringify(res.profile));
      });
    }
  }, 200);
  timer.unref();
}
