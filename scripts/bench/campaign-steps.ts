// Steps of the campaign bench: a launch as a client makes it (again after a 503), and the check of
// the estimate's time (docs/campaigns.md#the-estimates-time): the runner's pass cost is measured by
// the api's runner as it sends, so a warm-up campaign runs first (a platform that has sent
// campaigns before); then each campaign's estimate, made before any launch, is held against what
// the run took.
import { Client } from 'pg';
import { GatewayCall } from '../../test/support/campaigns';
import { BenchFigure } from './report';

/** The most the estimated time of a run may be off the actual, in percent of the actual. */
export const ESTIMATE_ERROR_MAX_PERCENT = 20;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Tries a launch that answers 503 again (after its Retry-After, at most 5 times), as a client does,
 * with one Idempotency-Key for all its tries: a try after one that launched it after all answers
 * the launched campaign. Each 503 is shown with its detail.
 */
export async function launchCampaign(call: GatewayCall, id: string): Promise<void> {
  const key = `bench-launch-${id}`;
  for (let tries = 1; ; tries++) {
    const res = await call('POST', `/v1/campaigns/${id}/launch`, undefined, { 'idempotency-key': key });
    if (res.status === 200) return;
    if (res.status !== 503 || tries >= 5) throw new Error(`launch refused: ${res.status} ${res.text}`);
    process.stderr.write(`launch answered 503 (${String(res.body?.detail ?? res.text)}), again (${tries})\n`);
    await sleep(1000 * Math.min(5, Number(res.headers.get('retry-after') ?? 1) || 1));
  }
}

/**
 * A campaign of the account's first `n` contacts (by external id), run to completion: the runner
 * measures its passes on the way.
 */
export async function warmUp(call: GatewayCall, externalIds: string[]): Promise<void> {
  const created = await call('POST', '/v1/campaigns', {
    name: 'Warm-up',
    template: 'promo',
    language: 'en',
    params: ['{{contact.name}}'],
    audience: { contact_ids: externalIds.map((id) => `ext:${id}`) },
    channels: ['whatsapp'],
  });
  if (created.status !== 201) throw new Error(`warm-up campaign refused: ${created.status} ${created.text}`);
  const id = created.body.id as string;
  await launchCampaign(call, id);
  for (const deadline = Date.now() + 300_000; ; await sleep(250)) {
    const state = (await call('GET', `/v1/campaigns/${id}`)).body.state as string;
    if (state === 'completed') return;
    if (Date.now() > deadline) throw new Error(`the warm-up campaign is ${state} after 5 minutes`);
  }
}

/** When each campaign started running, in ms since the epoch. */
async function startedAt(databaseUrl: string, ids: string[]): Promise<Map<string, number>> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ id: string; at: number }>(
      `SELECT id, extract(epoch FROM started_at) * 1000 AS at FROM api.campaigns WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    return new Map(rows.map((r) => [r.id, Number(r.at)]));
  } finally {
    await db.end();
  }
}

/**
 * The run's estimated time against its actual one. Each estimate is its campaign alone; the
 * campaigns share the one runner, which sends whatever is pending without waiting, so the last
 * recipient goes when the campaigns started from any one on have all been sent after it started:
 * the latest of (its start + the estimates of it and every one started after it). The starts are
 * the run's own (each launch loads its audience first).
 */
export async function estimateFigure(input: {
  databaseUrl: string;
  campaigns: { id: string; estimatedSeconds: number }[];
  launchedAt: number;
  actualSeconds: number;
  label: string;
}): Promise<BenchFigure> {
  const starts = await startedAt(
    input.databaseUrl,
    input.campaigns.map((c) => c.id),
  );
  const byStart = input.campaigns
    .map((c) => ({ ...c, start: (starts.get(c.id)! - input.launchedAt) / 1000 }))
    .sort((a, b) => a.start - b.start);
  let after = 0;
  let estimated = 0;
  for (let k = byStart.length - 1; k >= 0; k--) {
    after += byStart[k].estimatedSeconds;
    estimated = Math.max(estimated, byStart[k].start + after);
  }
  const error = ((estimated - input.actualSeconds) / input.actualSeconds) * 100;
  process.stderr.write(
    `estimate: ${estimated.toFixed(1)} s estimated, ${input.actualSeconds.toFixed(1)} s taken, error ${error.toFixed(1)} %\n`,
  );
  return {
    bench: 'campaign',
    figure: `estimated time of the ${byStart.length} campaigns (each estimated before any launch), first launch to the last recipient accepted${input.label}`,
    value: Number(estimated.toFixed(1)),
    unit: 's',
    baseline: { name: 'the time the run took', value: Number(input.actualSeconds.toFixed(1)) },
    ratio: Number((estimated / input.actualSeconds).toFixed(2)),
    detail: {
      error_percent: Number(error.toFixed(1)),
      error_max_percent: ESTIMATE_ERROR_MAX_PERCENT,
      estimated_seconds_each: byStart.map((c) => c.estimatedSeconds).join(' '),
      last_start_seconds: Number(byStart[byStart.length - 1].start.toFixed(1)),
    },
  };
}

/** Fails the bench (after showing its figures) when the estimate is off by more than the limit. */
export function checkEstimate(figures: BenchFigure[]): void {
  const f = figures.find((x) => x.detail?.error_max_percent !== undefined);
  if (!f || Math.abs(Number(f.detail!.error_percent)) <= ESTIMATE_ERROR_MAX_PERCENT) return;
  for (const x of figures) process.stderr.write(`${JSON.stringify(x)}\n`);
  throw new Error(
    `the estimate's time is off by ${String(f.detail!.error_percent)} % (estimated ${f.value} s, took ${f.baseline!.value} s): more than ${ESTIMATE_ERROR_MAX_PERCENT} %`,
  );
}
