import { Gauge } from 'prom-client';
import { counter, histogram, metricsRegistry } from '@app/server';

/** Delivery metrics per subscription, served on /metrics. */
export const webhookMetrics = {
  deliveries: () =>
    counter('webhook_deliveries_total', 'Webhook delivery attempts by outcome', ['subscription_id', 'outcome']),
  failures: () => counter('webhook_delivery_failures_total', 'Failed webhook delivery attempts', ['subscription_id']),
  lag: () =>
    histogram(
      'webhook_delivery_lag_seconds',
      'Time from the event to its successful delivery',
      ['subscription_id'],
      [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 4 * 3600, 12 * 3600, 36 * 3600],
    ),
  backlog: (): Gauge<string> =>
    (metricsRegistry.getSingleMetric('webhook_retry_backlog') as Gauge<string> | undefined) ??
    new Gauge({
      name: 'webhook_retry_backlog',
      help: 'Pending deliveries that have failed at least once and wait for a retry',
      labelNames: ['subscription_id'],
    }),
};
