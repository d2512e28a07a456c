// What a hostile body costs the event loop: the validation pipe refusing a 600 KB body of 200,000
// template buttons, against the same pipe validating an ordinary template, measured in the same run;
// and what the scan every JSON body gets before it is parsed (depth, tokens) costs against the parse.
import { performance } from 'node:perf_hooks';
import { createValidationPipe, scanJson } from '@app/server';
import { CreateTemplateDto } from '../../apps/api/src/templates/dto/create-template.dto';
import { Bench, BenchFigure, median } from './report';

const template = {
  name: 'order_shipped',
  language: 'en_US',
  category: 'UTILITY',
  body: 'Hi {{1}}, your order {{2}} has shipped.',
  body_example: 'Hi Anna, your order A1234 has shipped.',
  buttons: [{ type: 'QUICK_REPLY', text: 'Thanks' }],
};

/** Milliseconds of each run of the pipe on a fresh copy of `body` (the pipe works in place). */
async function timeRuns(raw: string, runs: number): Promise<number[]> {
  const pipe = createValidationPipe();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const body: unknown = JSON.parse(raw);
    const started = performance.now();
    await pipe.transform(body, { type: 'body', metatype: CreateTemplateDto }).catch(() => undefined);
    times.push(performance.now() - started);
  }
  return times;
}

/** Microseconds per KiB of `fn` over `buf`, the median of `runs` runs of `reps` calls each. */
function microsPerKiB(buf: Buffer, runs: number, reps: number, fn: (b: Buffer) => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    for (let r = 0; r < reps; r++) fn(buf);
    times.push(((performance.now() - started) * 1000) / reps / (buf.length / 1024));
  }
  return median(times);
}

export const hostileInputBench: Bench = async (opts): Promise<BenchFigure[]> => {
  const runs = opts.smoke ? 20 : 200;
  const hostile = JSON.stringify({ ...template, buttons: Array.from({ length: 200_000 }, () => ({})) });
  const ordinary = await timeRuns(JSON.stringify(template), runs);
  const refused = await timeRuns(hostile, runs);
  const value = median(refused);
  const baseline = median(ordinary);
  // An ordinary send body and 52 KiB of ordinary sends, as the parser gets them.
  const send = Buffer.from(
    JSON.stringify({ phone: '5511987654321', type: 'TEMPLATE', template: { name: 'bench_tpl' } }),
  );
  const batch = Buffer.from(JSON.stringify(Array.from({ length: 700 }, () => JSON.parse(send.toString()) as unknown)));
  const scanRuns = opts.smoke ? 20 : 100;
  const scans = [send, batch].map((buf) => ({
    bytes: buf.length,
    scan: microsPerKiB(buf, scanRuns, buf.length > 1024 ? 20 : 2000, (b) => scanJson(b)),
    parse: microsPerKiB(buf, scanRuns, buf.length > 1024 ? 20 : 2000, (b) => JSON.parse(b.toString('utf8'))),
  }));
  return [
    {
      bench: 'hostile-input',
      figure: 'scanning a JSON body for depth and tokens before it is parsed, µs per KiB (lower is better)',
      value: scans[1].scan,
      unit: 'µs/KiB',
      baseline: { name: 'JSON.parse of the same body (from its bytes), µs per KiB', value: scans[1].parse },
      ratio: scans[1].scan / scans[1].parse,
      detail: {
        body_bytes: scans[1].bytes,
        send_body_bytes: scans[0].bytes,
        send_body_scan_us_per_kib: scans[0].scan,
        send_body_parse_us_per_kib: scans[0].parse,
      },
    },
    {
      bench: 'hostile-input',
      figure: 'refusing a 600 KB body of 200,000 template buttons, median ms (lower is better)',
      value,
      unit: 'ms',
      baseline: { name: 'validating an ordinary template, median ms', value: baseline },
      ratio: value / baseline,
      detail: { body_bytes: hostile.length, runs, max_refusal_ms: Math.max(...refused) },
    },
  ];
};
