// What a hostile body costs the event loop: the validation pipe refusing a 600 KB body of 200,000
// template buttons, against the same pipe validating an ordinary template, measured in the same run.
import { performance } from 'node:perf_hooks';
import { createValidationPipe } from '@app/server';
import { CreateTemplateDto } from '../../apps/api/src/templates/dto/create-template.dto';
import { Bench, median } from './report';

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

export const hostileInputBench: Bench = async (opts) => {
  const runs = opts.smoke ? 20 : 200;
  const hostile = JSON.stringify({ ...template, buttons: Array.from({ length: 200_000 }, () => ({})) });
  const ordinary = await timeRuns(JSON.stringify(template), runs);
  const refused = await timeRuns(hostile, runs);
  const value = median(refused);
  const baseline = median(ordinary);
  return [
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
