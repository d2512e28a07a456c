// The tracking pixel's answers per second and latency: GET /v1/course/pixel/{token}.gif on the
// gateway (its own process, with the api answering the recording of opens), with tokens of distinct
// messages (each open stored in JetStream) and with forged tokens (nothing stored), against the same
// gateway's /healthz, measured in turns in the same run.
import { SecretBox } from '@app/auth';
import { DEV_CREDENTIALS_KEYS } from '@app/config';
import { newMessageId } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { PixelTokens } from '../../apps/gateway/src/pixel/pixel-token';
import { httpLoad, LoadResult, totalLoad } from './http-load';
import { Bench, BenchFigure } from './report';
import { spawnPlatform } from './spawned-platform';

const CONNECTIONS = 16;
/** Distinct messages whose tokens the load cycles through. */
const MESSAGES = 20_000;

export const pixelBench: Bench = async (opts) => {
  const platform = await spawnPlatform(opts, { suite: 'bench-pixel', services: ['gateway', 'api'] });
  const clients = await NatsClients.connect({ url: opts.natsUrl, name: 'bench-pixel' });
  const jsm = await clients.jsm();
  try {
    const tokens = new PixelTokens(SecretBox.fromSpec(platform.env.CREDENTIALS_KEYS ?? DEV_CREDENTIALS_KEYS));
    const genuine = Array.from({ length: MESSAGES }, () => tokens.seal(newMessageId()));
    const forged = genuine.map((t) => {
      const raw = Buffer.from(t, 'base64url');
      raw[30] ^= 0x01;
      return raw.toString('base64url');
    });
    const get = (path: (i: number) => string) => (i: number) => ({ method: 'GET', path: path(i) });
    const health = get(() => '/healthz');
    const opened = get((i) => `/v1/course/pixel/${genuine[i % MESSAGES]}.gif`);
    // Under load (CONNECTIONS at once: throughput) and one request at a time (latency unloaded).
    const cases = {
      healthz: { connections: CONNECTIONS, next: health },
      forged: { connections: CONNECTIONS, next: get((i) => `/v1/course/pixel/${forged[i % MESSAGES]}.gif`) },
      pixel: { connections: CONNECTIONS, next: opened },
      healthzAlone: { connections: 1, next: health },
      pixelAlone: { connections: 1, next: opened },
    };
    const inbound = async () => (await jsm.streams.info(platform.infra.topology.stream('inbound'))).state;
    /** Waits until every stored open is recorded (the next slice starts clean); the seconds it took. */
    const drained = async (): Promise<number> => {
      const started = Date.now();
      while ((await inbound()).messages > 0) {
        if (Date.now() - started > 300_000) throw new Error('the stored opens were not recorded within 300 s');
        await new Promise((r) => setTimeout(r, 100));
      }
      return (Date.now() - started) / 1000;
    };
    // On a shared machine the load moves: the cases take turns in short slices, so each sees the same.
    const rounds = opts.smoke ? 1 : Number(process.env.BENCH_ROUNDS ?? 3);
    const slice = opts.seconds / rounds;
    const slices: Record<keyof typeof cases, LoadResult[]> = {
      healthz: [],
      forged: [],
      pixel: [],
      healthzAlone: [],
      pixelAlone: [],
    };
    let drainSeconds = 0;
    for (let round = 1; round <= rounds; round++) {
      for (const name of Object.keys(cases) as (keyof typeof cases)[]) {
        process.stderr.write(`round ${round}/${rounds}: ${name}, ${slice} s\n`);
        slices[name].push(await httpLoad(platform.urls.gateway, { ...cases[name], seconds: slice, expect: 200 }));
        if (name === 'pixel' || name === 'pixelAlone') drainSeconds += await drained();
      }
    }
    const [base, pixel, forgedLoad, baseAlone, pixelAlone] = (
      ['healthz', 'pixel', 'forged', 'healthzAlone', 'pixelAlone'] as const
    ).map((n) => totalLoad(slices[n]));
    const stored = (await inbound()).last_seq;
    const detail = (r: LoadResult) => ({ p50_ms: r.p50, p99_ms: r.p99, answered: r.accepted, answers: r.statuses });
    /** One figure of the pixel against the same measure of /healthz. */
    const against = (
      figure: string,
      measure: 'perSecond' | 'p99',
      pair: [LoadResult, LoadResult],
      extra: Record<string, number | string>,
    ): BenchFigure => {
      const [value, baseline] = pair.map((r) => r[measure]);
      return {
        bench: 'pixel',
        figure,
        value,
        unit: measure === 'p99' ? 'ms' : 'requests/s',
        baseline: {
          name: `the same gateway's /healthz${measure === 'p99' ? ' p99' : ''}, same conditions, same run`,
          value: baseline,
        },
        ratio: Math.round((value / Math.max(0.01, baseline)) * 100) / 100,
        detail: extra,
      };
    };
    const figures = [
      against(
        `tracking pixel GIFs/s, tokens of ${MESSAGES} distinct messages, ${CONNECTIONS} connections`,
        'perSecond',
        [pixel, base],
        {
          ...detail(pixel),
          baseline_p50_ms: base.p50,
          baseline_p99_ms: base.p99,
          opens_stored: stored,
          // Recording (the api's lookup and the message.read event) runs behind the answers: the
          // seconds after the load stopped until every stored open was recorded, over all slices.
          recording_caught_up_after_s: Math.round(drainSeconds * 10) / 10,
          rounds,
        },
      ),
      against(`tracking pixel p99 latency, ms (lower is better), ${CONNECTIONS} connections`, 'p99', [pixel, base], {
        p50_ms: pixel.p50,
        baseline_p50_ms: base.p50,
      }),
      against(
        'tracking pixel p99 latency, ms (lower is better), one request at a time',
        'p99',
        [pixelAlone, baseAlone],
        {
          p50_ms: pixelAlone.p50,
          baseline_p50_ms: baseAlone.p50,
          per_second: pixelAlone.perSecond,
          baseline_per_second: baseAlone.perSecond,
        },
      ),
      against(
        `tracking pixel GIFs/s, forged tokens (nothing stored), ${CONNECTIONS} connections`,
        'perSecond',
        [forgedLoad, base],
        detail(forgedLoad),
      ),
    ];
    return figures;
  } finally {
    await clients.drain();
    await platform.stop();
  }
};
