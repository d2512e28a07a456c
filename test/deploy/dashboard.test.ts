import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@app/testing';
import { seedDemo } from '../../scripts/seed';
import { Platform, ServiceName, startPlatform } from '../support/platform';
import { answer, Receiver } from '../../apps/webhooks/test/support/receiver';

const DASHBOARD = join(__dirname, '..', '..', 'deploy', 'grafana', 'messaging-platform.json');
const SERVICES: ServiceName[] = ['api', 'gateway', 'queue', 'webhooks', 'sandbox'];

interface Dashboard {
  panels: { title: string; targets: { expr: string }[] }[];
}

/** PromQL words that are not metric names: functions, aggregations, keywords, Grafana variables. */
const PROMQL_WORDS = new Set(['sum', 'max', 'min', 'avg', 'count', 'rate', 'irate', 'increase', 'histogram_quantile']);

/** Every metric name an expression reads: identifiers outside `{...}`, `[...]` and `by (...)` that are not PromQL functions. */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without)\s*\([^)]*\)/g, ' ');
  const names = bare.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? [];
  return [...new Set(names.filter((n) => !PROMQL_WORDS.has(n) && !/^\d/.test(n)))];
}

/** The family a sample belongs to (`x_bucket` -> `x` for histograms). */
const family = (name: string, exported: Set<string>) =>
  exported.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');

describe('the Grafana dashboard', () => {
  let platform: Platform;
  let receiver: Receiver;
  let dir: string;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'dashboard',
      services: SERVICES,
      env: { WEBHOOK_RETRY_SCHEDULE: '60000', WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' },
    });
    receiver = await new Receiver().start();
    dir = mkdtempSync(join(tmpdir(), 'dashboard-'));
  });

  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads only metrics the services export, after a message went to DELIVERED and a webhook failed', async () => {
    // One real send through the sandbox, with a subscriber that refuses its webhooks.
    const demo = await seedDemo(platform.infra.databaseUrl, platform.urls, join(dir, 'demo.json'));
    receiver.on('/refuses', answer(500));
    const sub = await fetch(`${platform.urls.api}/api/v1/subscriptions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${demo.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: receiver.url('/refuses'), events: '*' }),
    });
    expect(sub.status).toBe(201);
    const lines: string[] = [];
    expect(await demo.check((l) => lines.push(l))).toBe(true);
    await waitFor(() => receiver.at('/refuses').length > 0, 10_000, 'a webhook attempt');

    const exported = new Set<string>();
    await waitFor(
      async () => {
        for (const name of SERVICES) {
          const text = await (await fetch(`${platform.adminUrls[name]}/metrics`)).text();
          for (const m of text.matchAll(/^# TYPE (\S+) /gm)) exported.add(m[1]);
        }
        return exported.has('webhook_delivery_failures_total');
      },
      10_000,
      'the failed delivery in /metrics',
    );

    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
    const used = dashboard.panels.flatMap((p) =>
      p.targets.flatMap((t) => metricNames(t.expr).map((name) => ({ panel: p.title, name }))),
    );
    expect(used.length).toBeGreaterThan(10);
    const missing = used.filter((u) => !exported.has(family(u.name, exported)));
    expect(missing).toEqual([]);

    // The accepted-sends panel's series is the send route as the api labels it.
    const sendRoute = /route="(\/api\/v1\/wa\/apps\/:appId\/messages)"/.exec(dashboard.panels[0].targets[0].expr);
    expect(sendRoute).not.toBeNull();
    const apiMetrics = await (await fetch(`${platform.adminUrls.api}/metrics`)).text();
    expect(apiMetrics).toMatch(
      new RegExp(`http_request_duration_seconds_count\\{[^}]*method="POST",route="${sendRoute![1]}",status="201"`),
    );

    // The panels the platform team asked for are there.
    const names = new Set(used.map((u) => family(u.name, exported)));
    for (const required of [
      'http_request_duration_seconds',
      'queue_depth_messages',
      'message_status_latency_seconds',
      'channel_errors_total',
      'webhook_deliveries_total',
      'webhook_delivery_failures_total',
      'billing_holds_outstanding',
    ]) {
      expect(names).toContain(required);
    }
  });

  it('finds metric names in expressions, and not the PromQL around them', () => {
    expect(
      metricNames('histogram_quantile(0.95, sum by (le, channel) (rate(x_seconds_bucket{status="SENT"}[5m])))'),
    ).toEqual(['x_seconds_bucket']);
    expect(metricNames('max by (currency) (holds) + sum(rate(other_total[$__rate_interval]))')).toEqual([
      'holds',
      'other_total',
    ]);
  });
});
