// The campaign bench's media step (docs/media.md#one-upload-per-channel-connection): one image of
// the media library sent by a content campaign to 10,000 recipients (200 with --smoke) on Telegram
// and MAX, against a text campaign to the same audience in the same run. Figures: the uploads each
// channel received (the sandbox counts them: at most one per channel), and each campaign's rate
// from its start to the last message its channels received (the image's within 5 % of the text's;
// the sandbox keeps its latest SANDBOX_RECORDS_MAX calls, 10,000, per channel: one campaign's
// sends fit). A full run fails past either limit; a smoke run only reports.
import { Client } from 'pg';
import { ContactRow, gatewayAccount, gatewayClient, GatewayCall, importContacts } from '../../test/support/campaigns';
import { registerSandboxBot } from '../../test/support/sandbox';
import { launchCampaign } from './campaign-steps';
import { BenchFigure, cpuPerUnit } from './report';

/** The most a channel may receive the image: once per bot. */
export const MEDIA_UPLOADS_MAX_PER_CHANNEL = 1;
/** The most the image campaign's rate may be below the text campaign's, in percent. */
export const MEDIA_RATE_SHORTFALL_MAX_PERCENT = 5;

const CHANNELS = ['telegram', 'max'] as const;
type BotChannel = (typeof CHANNELS)[number];
const LIST = 'media-bench';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface CampaignMediaStepInput {
  urls: { gateway: string; sandbox: string };
  databaseUrl: string;
  /** The user who pays for the step's account. */
  userId: string;
  smoke: boolean;
  /** CPU milliseconds each service's processes have used so far. */
  cpuMs: () => Record<string, number>;
}

/** A JPEG of `size` bytes: its magic number, then filler (the sandbox keeps no pixels). */
function jpeg(size: number): Buffer {
  const b = Buffer.alloc(size, 7);
  Buffer.from([0xff, 0xd8, 0xff, 0xe0]).copy(b);
  return b;
}

/** Contact `i`: even ones on Telegram, odd ones on MAX; ids end in 1 (the sandbox refuses ids ending 3333 or 4444). */
function contacts(n: number): ContactRow[] {
  return Array.from({ length: n }, (_, i) => {
    const channel: BotChannel = i % 2 === 0 ? 'telegram' : 'max';
    return {
      external_id: `media-${i + 1}`,
      name: `Reader ${i + 1}`,
      identities: { [channel]: String(900_000_001 + i * 10) },
      lists: [LIST],
    };
  });
}

async function uploadCounts(sandboxUrl: string): Promise<Record<BotChannel, number>> {
  const res = await fetch(`${sandboxUrl}/_sandbox/media/uploads`);
  if (!res.ok) throw new Error(`the sandbox's upload counts: ${res.status}`);
  return (await res.json()) as Record<BotChannel, number>;
}

async function uploadImage(gatewayUrl: string, token: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(jpeg(150_000))], { type: 'image/jpeg' }), 'offer.jpg');
  const res = await fetch(`${gatewayUrl}/v1/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  if (res.status !== 201) throw new Error(`media upload refused: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

interface CampaignRun {
  seconds: number;
  perSecond: number;
  /** Each service's CPU milliseconds per recipient, from the launch until every message settled. */
  cpu: Record<string, number>;
}

/** The step's bots, by channel. */
type Bots = Record<BotChannel, { id: number; token: string }>;

/** The method each bot API records a send of `kind` as. */
const SEND_METHOD: Record<BotChannel, Record<'text' | 'image', string>> = {
  telegram: { text: 'sendMessage', image: 'sendPhoto' },
  max: { text: 'messages', image: 'messages' },
};

/** The sends each bot received since `since` (ms): how many, and when the last arrived. */
async function botSends(
  sandboxUrl: string,
  bots: Bots,
  kind: 'text' | 'image',
  since: number,
): Promise<Record<BotChannel, { count: number; last: number }>> {
  const out = {} as Record<BotChannel, { count: number; last: number }>;
  for (const channel of CHANNELS) {
    const res = await fetch(
      `${sandboxUrl}/_sandbox/${channel}/calls?bot_id=${bots[channel].id}&method=${SEND_METHOD[channel][kind]}`,
    );
    if (!res.ok) throw new Error(`the sandbox's ${channel} calls: ${res.status}`);
    const calls = ((await res.json()) as { received_at: number }[]).filter((c) => c.received_at >= since);
    out[channel] = { count: calls.length, last: Math.max(0, ...calls.map((c) => c.received_at)) };
  }
  return out;
}

/** Fails the step when a message of the campaign failed (its channel refused it); answers how many are still queued. */
async function settledSoFar(db: Client, kind: string, id: string): Promise<number> {
  const { rows } = await db.query<{ queued: number; failed: number; reason: string | null }>(
    `SELECT count(*) FILTER (WHERE status = 'QUEUED')::int AS queued,
            count(*) FILTER (WHERE status = 'FAILED')::int AS failed,
            max(failure_reason) AS reason
       FROM api.messages WHERE campaign_id = $1`,
    [id],
  );
  const { queued, failed, reason } = rows[0];
  if (failed) throw new Error(`${kind} campaign: ${failed} messages failed (${reason})`);
  return queued;
}

/**
 * Creates and launches a content campaign to the list and answers its rate: recipients over the
 * time from its start (its audience loaded) to the last message its channels received (the
 * sandbox's arrival times); then waits until the api has settled every message of it, so the next
 * campaign does not run beside its tail.
 */
async function runContentCampaign(
  input: CampaignMediaStepInput,
  call: GatewayCall,
  db: Client,
  bots: Bots,
  kind: 'text' | 'image',
  content: Record<string, unknown>,
  n: number,
): Promise<CampaignRun> {
  const created = await call('POST', '/v1/campaigns', {
    name: `Bench ${kind}`,
    content,
    audience: { list: LIST },
    channels: [...CHANNELS],
  });
  if (created.status !== 201) throw new Error(`${kind} campaign refused: ${created.status} ${created.text}`);
  const id = created.body.id as string;
  const since = Date.now();
  const cpuBefore = input.cpuMs();
  await launchCampaign(call, id);
  // Contacts alternate: the even ones on Telegram, the odd ones on MAX.
  const expected: Record<BotChannel, number> = { telegram: Math.ceil(n / 2), max: Math.floor(n / 2) };
  let sends: Awaited<ReturnType<typeof botSends>>;
  for (const deadline = Date.now() + 1_800_000; ; await sleep(1000)) {
    sends = await botSends(input.urls.sandbox, bots, kind, since);
    if (CHANNELS.every((c) => sends[c].count >= expected[c])) break;
    await settledSoFar(db, kind, id);
    const got = CHANNELS.map((c) => `${c} ${sends[c].count}/${expected[c]}`).join(', ');
    if (Date.now() > deadline) throw new Error(`${kind} campaign: the channels received ${got} within 30 minutes`);
  }
  const { rows } = await db.query<{ at: number }>(
    `SELECT extract(epoch FROM started_at) * 1000 AS at FROM api.campaigns WHERE id = $1`,
    [id],
  );
  const seconds = (Math.max(...CHANNELS.map((c) => sends[c].last)) - Number(rows[0].at)) / 1000;
  if (!(seconds > 0)) throw new Error(`${kind} campaign: no time from its start to its last send`);
  for (const deadline = Date.now() + 1_800_000; ; await sleep(1000)) {
    const queued = await settledSoFar(db, kind, id);
    if (queued === 0) break;
    if (Date.now() > deadline) throw new Error(`${kind} campaign: ${queued} messages still queued after 30 minutes`);
  }
  return { seconds, perSecond: n / seconds, cpu: cpuPerUnit(cpuBefore, input.cpuMs(), n) };
}

/**
 * The step: its own account with a Telegram and a MAX bot and its own contacts, two text and two
 * image campaigns (by media_id) to them in the order text, image, image, text, and the
 * sandbox's upload counts before and after the image ones.
 */
export async function campaignMediaStep(input: CampaignMediaStepInput): Promise<BenchFigure[]> {
  const n = Number(process.env.BENCH_CAMPAIGN_MEDIA_RECIPIENTS ?? (input.smoke ? 200 : 10_000));
  const label = input.smoke ? ' (smoke)' : '';
  const token = await gatewayAccount(input.databaseUrl, 'bench media', input.userId);
  const call = gatewayClient(input.urls.gateway, token);
  const bots = {} as Bots;
  for (const channel of CHANNELS) {
    const bot = (bots[channel] = await registerSandboxBot(input.urls.sandbox, channel));
    const connected = await call('POST', '/v1/connections', { channel, bot_token: bot.token });
    if (connected.status !== 201) throw new Error(`${channel} bot refused: ${connected.status} ${connected.text}`);
  }
  process.stderr.write(`media step: importing ${n} contacts on Telegram and MAX\n`);
  await importContacts(call, contacts(n), 600_000);
  const mediaId = await uploadImage(input.urls.gateway, token);
  const db = new Client({ connectionString: input.databaseUrl });
  await db.connect();
  try {
    // Text, image, image, text: each campaign meets the one before's tail (its statuses, events
    // and threads still being written) and the contacts' threads already made, and each kind runs
    // once early and once late: its rate is its two runs together.
    const runs: Record<'text' | 'image', CampaignRun[]> = { text: [], image: [] };
    const content = {
      text: { type: 'text', text: 'This week: 20% off' },
      image: { type: 'image', media_id: mediaId, caption: 'This week: 20% off' },
    };
    let before: Record<BotChannel, number> = { telegram: 0, max: 0 };
    let after = before;
    // The step's first campaign ran faster than every later one whatever its kind (27.8, 37.6 and
    // 32.2 s in three full runs, the other three 36-50 s each): it meets no earlier campaign's tail
    // and makes the contacts' threads where the others add to them. A text campaign first, not
    // counted, puts the four measured ones in the same state.
    process.stderr.write(`media step: a text campaign to ${n} first, not counted\n`);
    await runContentCampaign(input, call, db, bots, 'text', content.text, n);
    for (const kind of ['text', 'image', 'image', 'text'] as const) {
      if (kind === 'image' && runs.image.length === 0) before = await uploadCounts(input.urls.sandbox);
      process.stderr.write(`media step: ${kind === 'text' ? 'a text' : 'an image'} campaign to ${n}\n`);
      runs[kind].push(await runContentCampaign(input, call, db, bots, kind, content[kind], n));
      if (kind === 'image' && runs.image.length === 2) after = await uploadCounts(input.urls.sandbox);
    }
    const combined = (kind: 'text' | 'image') => {
      const seconds = runs[kind].reduce((sum, r) => sum + r.seconds, 0);
      return { seconds, perSecond: (n * runs[kind].length) / seconds };
    };
    // CPU per recipient of each service in each run, e.g. `cpu_ms_per_recipient_queue: "0.61 + 0.58"`.
    const cpuOf = (kind: 'text' | 'image') =>
      Object.fromEntries(
        Object.keys(runs[kind][0].cpu).map((service) => [
          `${kind}_cpu_ms_per_recipient_${service}`,
          runs[kind].map((r) => r.cpu[service]).join(' + '),
        ]),
      );
    const text = combined('text');
    const image = combined('image');
    const each = (kind: 'text' | 'image') => runs[kind].map((r) => r.seconds.toFixed(1)).join(' + ');
    process.stderr.write(`media step: text ${each('text')} s, image ${each('image')} s\n`);
    const uploads = Object.fromEntries(CHANNELS.map((c) => [c, after[c] - before[c]])) as Record<BotChannel, number>;
    const ratio = image.perSecond / text.perSecond;
    const figures: BenchFigure[] = [
      {
        bench: 'campaign',
        figure: `one image (media_id) to ${n} recipients on Telegram and MAX: uploads each channel received${label}`,
        value: Math.max(...CHANNELS.map((c) => uploads[c])),
        unit: 'uploads per channel',
        baseline: { name: 'the limit: one upload per channel', value: MEDIA_UPLOADS_MAX_PER_CHANNEL },
        ratio: Math.max(...CHANNELS.map((c) => uploads[c])) / MEDIA_UPLOADS_MAX_PER_CHANNEL,
        detail: { ...uploads },
      },
      {
        bench: 'campaign',
        figure: `an image campaign (media_id) to ${n} recipients on Telegram and MAX: its start to its last message at the channel${label}`,
        value: Math.round(image.perSecond),
        unit: 'recipients/s',
        baseline: { name: 'a text campaign to the same recipients, same run', value: Math.round(text.perSecond) },
        ratio: Number(ratio.toFixed(3)),
        detail: {
          image_seconds: each('image'),
          text_seconds: each('text'),
          order: 'text, image, image, text',
          ...cpuOf('text'),
          ...cpuOf('image'),
          shortfall_max_percent: MEDIA_RATE_SHORTFALL_MAX_PERCENT,
        },
      },
    ];
    if (!input.smoke) {
      // A failure shows the figures first, as the estimate's check does.
      const fail = (message: string) => {
        for (const f of figures) process.stderr.write(`${JSON.stringify(f)}\n`);
        return new Error(message);
      };
      const over = CHANNELS.filter((c) => uploads[c] > MEDIA_UPLOADS_MAX_PER_CHANNEL);
      if (over.length) throw fail(`the image was uploaded more than once on ${over.join(', ')}`);
      if (ratio < 1 - MEDIA_RATE_SHORTFALL_MAX_PERCENT / 100) {
        throw fail(
          `the image campaign sent ${Math.round(image.perSecond)}/s, ${((1 - ratio) * 100).toFixed(1)} % below the text campaign's ${Math.round(text.perSecond)}/s: more than ${MEDIA_RATE_SHORTFALL_MAX_PERCENT} %`,
        );
      }
    }
    return figures;
  } finally {
    await db.end();
  }
}
