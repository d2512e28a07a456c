import { collectDefaultMetrics, Counter, Histogram, register } from 'prom-client';

let started = false;

/** Process metrics plus HTTP request metrics, in the default registry served at /metrics. */
export function startDefaultMetrics(service: string): void {
  if (started) return;
  started = true;
  register.setDefaultLabels({ service });
  collectDefaultMetrics();
}

export const httpRequestDuration = lazyHistogram('http_request_duration_seconds', 'HTTP request duration', [
  'method',
  'route',
  'status',
]);

function lazyHistogram(name: string, help: string, labelNames: string[]): () => Histogram<string> {
  let h: Histogram<string> | undefined;
  return () =>
    (h ??=
      (register.getSingleMetric(name) as Histogram<string> | undefined) ??
      new Histogram({ name, help, labelNames, buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] }));
}

/** A counter registered once per process, however many app instances a test boots. */
export function counter(name: string, help: string, labelNames: string[] = []): Counter<string> {
  return (register.getSingleMetric(name) as Counter<string> | undefined) ?? new Counter({ name, help, labelNames });
}

/** A histogram registered once per process. */
export function histogram(
  name: string,
  help: string,
  labelNames: string[] = [],
  buckets?: number[],
): Histogram<string> {
  return (
    (register.getSingleMetric(name) as Histogram<string> | undefined) ??
    new Histogram({ name, help, labelNames, ...(buckets ? { buckets } : {}) })
  );
}

export { register as metricsRegistry };
