// pnpm bench [name ...]: runs every benchmark (or the named ones) on loopback and prints one JSON
// line per figure with its baseline and ratio; bench/results.json keeps the latest of each.
// --smoke: a few seconds each, for CI, asserting only that each completes and reports a figure.
import { cpus, totalmem } from 'node:os';
import { Bench, BenchFigure, report } from './bench/report';
import { campaignBench } from './bench/campaign.bench';
import { consumerBench } from './bench/consumer.bench';
import { contactsBench } from './bench/contacts.bench';
import { conversationsBench } from './bench/conversations.bench';
import { e2eBench } from './bench/e2e.bench';
import { fairnessBench } from './bench/fairness.bench';
import { hostileInputBench } from './bench/hostile-input.bench';
import { pixelBench } from './bench/pixel.bench';
import { priorityBench } from './bench/priority.bench';
import { sendBench } from './bench/send.bench';
import { transactionsBench } from './bench/transactions.bench';
import { usageBench } from './bench/usage.bench';
import { webhooksBench } from './bench/webhooks.bench';

const BENCHES: Record<string, Bench> = {
  consumer: consumerBench,
  send: sendBench,
  e2e: e2eBench,
  priority: priorityBench,
  fairness: fairnessBench,
  webhooks: webhooksBench,
  'hostile-input': hostileInputBench,
  usage: usageBench,
  pixel: pixelBench,
  transactions: transactionsBench,
  contacts: contactsBench,
  campaign: campaignBench,
  conversations: conversationsBench,
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const smoke = args.includes('--smoke') || process.env.BENCH_SMOKE === '1';
  const names = args.filter((a) => !a.startsWith('--'));
  const unknown = names.filter((n) => !BENCHES[n]);
  if (unknown.length) {
    process.stderr.write(`unknown bench: ${unknown.join(', ')} (known: ${Object.keys(BENCHES).join(', ')})\n`);
    process.exit(2);
  }
  const opts = {
    smoke,
    seconds: Number(process.env.BENCH_SECONDS ?? (smoke ? 5 : 60)),
    natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  };
  const machine = {
    cpus: cpus().length,
    cpu: cpus()[0]?.model,
    memory_gib: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  };
  const figures: BenchFigure[] = [];
  for (const name of names.length ? names : Object.keys(BENCHES)) {
    process.stderr.write(`== bench ${name}${smoke ? ' (smoke)' : ''}\n`);
    const got = await BENCHES[name](opts);
    if (got.length === 0 || got.some((f) => !Number.isFinite(f.value)))
      throw new Error(`bench ${name} reported no figure`);
    figures.push(...got);
  }
  report(figures, machine);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
