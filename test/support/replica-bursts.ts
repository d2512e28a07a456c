/** A per-token rate limit: a burst, then so many requests a second. */
export interface TokenRate {
  perSecond: number;
  burst: number;
}

export interface Burst {
  /** Each replica's answers, in the order sent. */
  statuses: number[][];
  seconds: number;
}

/**
 * `rate.burst` + 100 requests of one token, eight at a time, each to the next replica directly (no
 * balancer between): the answers of each replica and how long it took.
 */
export async function burstAcross(rate: TokenRate, replicas: string[], path: string, auth: string): Promise<Burst> {
  const statuses: number[][] = replicas.map(() => []);
  const total = rate.burst + 100;
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let k = next++; k < total; k = next++) {
        const res = await fetch(`${replicas[k % replicas.length]}${path}`, { headers: { authorization: auth } });
        await res.arrayBuffer();
        statuses[k % replicas.length].push(res.status);
      }
    }),
  );
  return { statuses, seconds: (Date.now() - started) / 1000 };
}

/** The burst was limited as one limit across the replicas, each of which refused some of it. */
export function expectLimitedAcross(rate: TokenRate, { statuses, seconds }: Burst): void {
  const allowed = statuses.flat().filter((s) => s === 200).length;
  expect(statuses.flat().filter((s) => s !== 200 && s !== 429)).toEqual([]);
  // Per process, each replica would allow its own burst: all 300 requests would pass.
  expect(allowed).toBeGreaterThanOrEqual(rate.burst);
  expect(allowed).toBeLessThanOrEqual(rate.burst + Math.ceil(seconds * rate.perSecond) + 1);
  for (const mine of statuses) expect(mine).toContain(429);
}
