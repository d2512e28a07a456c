import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { newEventId } from '@app/contracts';
import { WebhooksConfig } from '../config';
import { SubscriptionsRepository } from '../subscriptions/subscriptions.repository';
import { ClaimedDelivery, DeliveriesRepository } from './deliveries.repository';
import { EndpointNotices } from './endpoint-notices';
import { judge, Verdict } from './retry-policy';
import { webhookMetrics } from './webhook-metrics';
import { WebhookResponse, WebhookSender } from './webhook-sender';

/** A lease outlives the longest attempt by this much before another dispatcher may take over. */
const LEASE_MARGIN_MS = 5000;

function formatDuration(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/**
 * Sends due deliveries. Work comes from Postgres, so any number of replicas share it; each
 * subscription has its own small concurrency limit, so a slow or dead subscriber only ever holds
 * its own slots and everybody else's deliveries go straight out.
 */
@Injectable()
export class DeliveryDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliveryDispatcher.name);
  private readonly schedule: number[];
  private readonly leaseMs: number;
  private running = false;
  private loop?: Promise<void>;
  private housekeeping?: NodeJS.Timeout;
  private wakeUp?: () => void;
  private wakeRequested = false;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopping = new AbortController();

  constructor(
    private readonly config: WebhooksConfig,
    private readonly deliveries: DeliveriesRepository,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly sender: WebhookSender,
    private readonly notices: EndpointNotices,
  ) {
    this.schedule = config.retryScheduleMs;
    this.leaseMs = config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS;
  }

  onApplicationBootstrap(): void {
    this.running = true;
    this.loop = this.run();
    this.housekeeping = setInterval(() => void this.keepHouse(), this.config.WEBHOOK_HOUSEKEEPING_INTERVAL_MS);
    this.housekeeping.unref();
    void this.keepHouse();
  }

  /** Stops taking work, cuts attempts in flight short and hands their deliveries back. */
  async onModuleDestroy(): Promise<void> {
    this.running = false;
    if (this.housekeeping) clearInterval(this.housekeeping);
    this.stopping.abort();
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
    this.sender.close();
  }

  /** New work was stored by this process: look now instead of at the next poll. */
  wake(): void {
    this.wakeRequested = true;
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const free = this.config.WEBHOOK_CONCURRENCY - this.inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      this.wakeRequested = false;
      if (free > 0) {
        try {
          claimed = await this.deliveries.claim(free, this.config.WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION, this.leaseMs);
        } catch (err) {
          if (this.running) this.logger.error({ err: String(err) }, 'claiming deliveries failed');
        }
      }
      for (const d of claimed) {
        const p: Promise<void> = this.attempt(d)
          .catch((err) => this.logger.error({ delivery_id: d.id, err: String(err) }, 'delivery attempt failed'))
          .finally(() => {
            this.inFlight.delete(p);
            this.wake();
          });
        this.inFlight.add(p);
      }
      // Everything due was taken (or waits for its subscription's slot, or for a free slot here):
      // sleep until an attempt finishes, new work is stored, or the next poll.
      await this.idle(this.config.WEBHOOK_POLL_INTERVAL_MS);
    }
  }

  private idle(ms: number): Promise<void> {
    if (!this.running) return Promise.resolve();
    if (this.wakeRequested) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  private secretsOf(d: ClaimedDelivery): string[] {
    const inGrace =
      d.previous_secret && d.previous_secret_expires_at && d.previous_secret_expires_at.getTime() > Date.now();
    return inGrace ? [d.secret, d.previous_secret!] : [d.secret];
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const startedAt = new Date();
    const response: WebhookResponse =
      d.payload === null
        ? {
            status: null,
            latencyMs: 0,
            excerpt: null,
            error: 'the event body is past its retention period',
            retryAfterMs: null,
            aborted: false,
          }
        : await this.sender.send(
            { url: d.url, eventId: d.event_id, payload: d.payload, secrets: this.secretsOf(d) },
            this.stopping.signal,
          );
    if (response.aborted) {
      await this.deliveries.release(d.id).catch(() => undefined);
      return;
    }
    const verdict: Verdict = d.payload === null ? { kind: 'exhausted' } : judge(response, d.retry_index, this.schedule);
    const attempt = d.attempts + 1;
    const succeeded = verdict.kind === 'success';
    let disabled = false;

    await this.subscriptions.transaction(async (em) => {
      const sub = await this.subscriptions.lock(em, d.subscription_id);
      if (!sub) return; // deleted meanwhile: its deliveries went with it
      let status: 'PENDING' | 'SUCCEEDED' | 'FAILED' = succeeded ? 'SUCCEEDED' : 'FAILED';
      let nextAttemptAt: Date | null = null;
      if (verdict.kind === 'retry' && sub.status === 'ACTIVE') {
        status = 'PENDING';
        nextAttemptAt = new Date(Date.now() + verdict.delayMs);
      }
      const record = {
        deliveryId: d.id,
        subscriptionId: d.subscription_id,
        eventId: d.event_id,
        eventType: d.event_type,
        attempt,
        status: succeeded ? ('SUCCEEDED' as const) : ('FAILED' as const),
        responseStatus: response.status,
        latencyMs: response.latencyMs,
        responseExcerpt: response.excerpt,
        error: response.error ?? (succeeded ? null : `answered ${response.status}`),
        startedAt,
      };
      await this.deliveries.recordAttempt(em, record, nextAttemptAt);
      await this.deliveries.settle(em, d.id, { status, nextAttemptAt, retried: status === 'PENDING' }, record);
      if (sub.status !== 'ACTIVE') return;
      if (succeeded) {
        await this.subscriptions.markHealthy(em, sub.id);
        return;
      }
      let reason: string | null = null;
      if (verdict.kind === 'gone') {
        reason = 'the endpoint answered 410 Gone';
      } else {
        const since = await this.subscriptions.markFailing(em, sub.id, startedAt);
        if (Date.now() - since.getTime() >= this.config.WEBHOOK_DISABLE_AFTER_MS) {
          reason = `every delivery failed for ${formatDuration(this.config.WEBHOOK_DISABLE_AFTER_MS)}`;
        }
      }
      if (reason) {
        await this.subscriptions.disable(em, sub.id, reason, newEventId());
        await this.deliveries.failPending(em, sub.id, `subscription disabled: ${reason}`);
        disabled = true;
      }
    });

    const m = webhookMetrics;
    m.deliveries()
      .labels(d.subscription_id, succeeded ? 'success' : 'failure')
      .inc();
    if (succeeded) {
      m.lag()
        .labels(d.subscription_id)
        .observe(Math.max(0, (Date.now() - d.event_created_at.getTime()) / 1000));
    } else {
      m.failures().labels(d.subscription_id).inc();
    }
    if (disabled) {
      this.logger.warn({ subscription_id: d.subscription_id }, 'subscription disabled');
      await this.notices.flush();
    }
  }

  /** Retry-backlog gauge, owed `endpoint.disabled` events and body retention. */
  private async keepHouse(): Promise<void> {
    try {
      const backlog = await this.deliveries.retryBacklog();
      const gauge = webhookMetrics.backlog();
      gauge.reset();
      for (const row of backlog) gauge.labels(row.subscription_id).set(Number(row.n));
      await this.notices.flush();
      await this.deliveries.purgePayloads(this.config.WEBHOOK_PAYLOAD_RETENTION_MS);
    } catch (err) {
      if (this.running) this.logger.warn({ err: String(err) }, 'housekeeping failed');
    }
  }
}
