import type { Schemas } from '../api/client';

export type UsageRow = Schemas['UsageRowDto'];

/** A UTC day as YYYY-MM-DD, `daysAgo` days before today. */
export function day(daysAgo = 0): string {
  return new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
}

export interface Totals {
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  cost: number;
  currency: string;
}

/** Usage rows summed per key (channel, category or hour). */
export function totalsBy(rows: UsageRow[], key: (row: UsageRow) => string): Map<string, Totals> {
  const out = new Map<string, Totals>();
  for (const r of rows) {
    const k = key(r);
    const t = out.get(k) ?? { sent: 0, delivered: 0, read: 0, failed: 0, cost: 0, currency: r.currency };
    t.sent += r.sent + r.delivered + r.read;
    t.delivered += r.delivered + r.read;
    t.read += r.read;
    t.failed += r.failed;
    t.cost += r.cost;
    out.set(k, t);
  }
  return out;
}
