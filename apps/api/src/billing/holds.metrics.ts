import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Gauge } from 'prom-client';
import { DataSource } from 'typeorm';
import { metricsRegistry } from '@app/server';

let source: DataSource | undefined;

/** The holds not yet captured or released (HELD: `settled_at` is set when either happens; holds_outstanding_idx). */
async function collectHolds(this: Gauge<string>, amount: boolean): Promise<void> {
  if (!source?.isInitialized) return;
  try {
    const rows = (await source.query(
      `SELECT currency, count(*)::int AS n, coalesce(sum(amount), 0)::float AS total
         FROM holds WHERE settled_at IS NULL GROUP BY currency`,
    )) as { currency: string; n: number; total: number }[];
    this.reset();
    for (const r of rows) this.labels(r.currency).set(amount ? Number(r.total) : r.n);
  } catch {
    // A scrape while Postgres is away keeps the last values; readiness reports the outage.
  }
}

const gauge = (name: string, help: string, amount: boolean): Gauge<string> =>
  (metricsRegistry.getSingleMetric(name) as Gauge<string> | undefined) ??
  new Gauge({
    name,
    help,
    labelNames: ['currency'],
    collect() {
      return collectHolds.call(this, amount);
    },
  });

gauge('billing_holds_outstanding', 'Holds on balances not yet captured or released (status HELD)', false);
gauge('billing_holds_outstanding_amount', 'Money held on balances for messages in flight', true);

/** Counts the HELD holds at each scrape (every replica reports the same figures). */
@Injectable()
export class HoldsMetrics implements OnModuleInit, OnModuleDestroy {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  onModuleInit(): void {
    source = this.ds;
  }

  onModuleDestroy(): void {
    if (source === this.ds) source = undefined;
  }
}
