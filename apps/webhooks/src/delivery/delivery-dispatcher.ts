import { GroupCommit } from '@app/database';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { newEventId } from '@app/contracts';
import { contextFrom, inSpan, SpanKind } from '@app/messaging';
import { PeriodicJob, Clock } from '@app/server';
import { WebhooksConfig } from '../config';
import { SubscriptionsRepository } from '../subscriptions/subscriptions.repository';
import { AttemptOutcome, ClaimedDelivery, DeliveryClaimsRepository } from './delivery-claims.repository';
import { DeliveryHousekeepingRepository } from './delivery-housekeeping.repository';
import { EndpointNotices } from './endpoint-notices';
import { HeldDeliveriesRepository } from './held-deliveries.repository';
import { judge, Verdict } from './retry-policy';
import { webhookMetrics } from './webhook-metrics';
import { WebhookResponse, WebhookSender } from './webhook-sender';

/** A lease outlives the longest attempt by this much before another dispatcher may take over. */
const LEASE_MARGIN_MS = 5000;
/** Held deliveries moved into the line per subscription at a time once its endpoint answers. */
const RELEASE_PER_SUBSCRIPTION = 1000;

function formatDuration(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/**
 * Sends due deliveries. Work comes from Postgres, so any number of replicas share it. Each
 * subscription has a window of attempts in flight (the events of one message still go one after
 * another) and each tenant a limit across its subscriptions, so a slow or dead subscriber only
 * ever holds its own slots. A failing endpoint is parked: nothing goes to it until its next
 * probe on the retry schedule, and its backlog flows again once a probe succeeds: the events
 * held for it meanwhile are moved in line here, before the claim that may take them.
 *
 * Successes are settled in batches (one transaction per batch); failures, which decide parking
 * and disabling, each in their own transaction with the subscription locked.
 */
@Injectable()
export class DeliveryDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliveryDispatcher.name);
  private readonly schedule: number[];
  private readonly leaseMs: number;
  private running = false;
  private loop?: Promise<void>;
  private readonly housekeepingJob: PeriodicJob<void>;
  private wakeUp?: () => void;
  private wakeRequested = false;
  private nextRelease = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  private readonly successes: GroupCommit<AttemptOutcome, void>;

  constructor(
    private readonly config: WebhooksConfig,
    private readonly claims: DeliveryClaimsRepository,
    private readonly held: HeldDeliveriesRepository,
    private readonly housekeeping: DeliveryHousekeepingRepository,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly sender: WebhookSender,
    private readonly notices: EndpointNotices,
    private readonly clock: Clock,
  ) {
    this.schedule = config.retryScheduleMs;
    this.leaseMs = config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS;
    this.successes = new GroupCommit<AttemptOutcome, void>(async (_key, outcomes) => {
      // An endpoint that proved itself gets its held events in line at once.
      if ((await this.claims.settleSucceeded(outcomes)) > 0) this.requestRelease();
      return [];
    }, 500);
    this.housekeepingJob = new PeriodicJob(
      'webhooks housekeeping',
      config.WEBHOOK_HOUSEKEEPING_INTERVAL_MS,
      () => this.keepHouse(),
      this.logger,
    );
  }

  onApplicationBootstrap(): void {
    this.running = true;
    this.loop = this.run();
    this.housekeepingJob.start();
    void this.housekeepingJob.run();
  }

  /** Stops taking work, cuts attempts in flight short and hands their deliveries back. */
  async onModuleDestroy(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
    await this.housekeepingJob.stop();
    this.sender.close();
  }

  /** New work was stored by this process: look now instead of at the next poll. */
  wake(): void {
    this.wakeRequested = true;
    this.wakeUp?.();
  }

  /** Events were held for an endpoint that may take one now: move them in line before the next claim. */
  requestRelease(): void {
    this.nextRelease = 0;
    this.wake();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const free = this.config.WEBHOOK_CONCURRENCY - this.inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      this.wakeRequested = false;
      await this.releaseHeld();
      if (free > 0) {
        try {
          claimed = await this.claims.claim({
            max: free,
            perSubscription: this.config.WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION,
            perTenant: this.config.WEBHOOK_CONCURRENCY_PER_TENANT,
            leaseMs: this.leaseMs,
          });
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
      // Everything due was taken (or waits for a window, a parked endpoint's probe, or a free slot
      // here): sleep until an attempt finishes, new work is stored, or the next poll.
      if (this.nextRelease === 0) this.wakeRequested = true;
      await this.idle(this.config.WEBHOOK_POLL_INTERVAL_MS);
    }
  }

  /**
   * Moves the events held behind endpoints that answer again into the line (or one for a due
   * probe), once per poll interval while there is nothing to move and at once while there is.
   */
  private async releaseHeld(): Promise<void> {
    const now = this.clock.nowMs();
    if (now < this.nextRelease) return;
    this.nextRelease = now + this.config.WEBHOOK_POLL_INTERVAL_MS;
    try {
      if ((await this.held.release(RELEASE_PER_SUBSCRIPTION)) > 0) this.nextRelease = 0;
    } catch (err) {
      if (this.running) this.logger.error({ err: String(err) }, 'releasing held deliveries failed');
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

  /**
   * Sends one claimed delivery and settles it; tracing on, as a client span of the event's trace
   * (its event id and type, never its body or URL).
   */
  attempt(d: ClaimedDelivery): Promise<void> {
    const attributes = {
      'app.webhook.event_id': d.event_id,
      'app.event.type': d.event_type,
      'app.webhook.attempt': d.attempts + 1,
    };
    return inSpan(
      'webhook delivery',
      { kind: SpanKind.CLIENT, parent: contextFrom(d.traceparent), attributes },
      async (span) => {
        const status = await this.attemptOnce(d);
        if (status !== null) span?.setAttribute('http.response.status_code', status);
      },
    );
  }

  private async attemptOnce(d: ClaimedDelivery): Promise<number | null> {
    const startedAt = this.clock.now();
    const inGrace = d.previous_secret_expires_at !== null && d.previous_secret_expires_at > startedAt;
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
            {
              url: d.url,
              eventId: d.event_id,
              payload: d.payload,
              secrets: this.subscriptions.openSecrets({ ...d, id: d.subscription_id }, inGrace),
            },
            this.stopping.signal,
          );
    if (response.aborted) {
      await this.claims.release(d.id).catch(() => undefined);
      return null;
    }
    const verdict: Verdict = d.payload === null ? { kind: 'exhausted' } : judge(response, d.retry_index, this.schedule);
    const succeeded = verdict.kind === 'success';
    const record = {
      deliveryId: d.id,
      subscriptionId: d.subscription_id,
      eventId: d.event_id,
      eventType: d.event_type,
      attempt: d.attempts + 1,
      status: succeeded ? ('SUCCEEDED' as const) : ('FAILED' as const),
      responseStatus: response.status,
      latencyMs: response.latencyMs,
      responseExcerpt: response.excerpt,
      error: response.error ?? (succeeded ? null : `answered ${response.status}`),
      startedAt,
    };
    const disabled = succeeded
      ? (await this.successes.submit('', { record, status: 'SUCCEEDED', nextAttemptAt: null }), false)
      : await this.settleFailure(d, record, verdict, response.retryAfterMs !== null);

    const m = webhookMetrics;
    m.deliveries()
      .labels(d.subscription_id, succeeded ? 'success' : 'failure')
      .inc();
    if (succeeded) {
      m.lag()
        .labels(d.subscription_id)
        .observe(Math.max(0, (this.clock.now().getTime() - d.event_created_at.getTime()) / 1000));
    } else {
      m.failures().labels(d.subscription_id).inc();
    }
    if (disabled) {
      this.logger.warn({ subscription_id: d.subscription_id }, 'subscription disabled');
      await this.notices.flush();
    }
    return response.status;
  }

  /**
   * A failed attempt: the delivery waits for its next retry or fails for good, and the endpoint is
   * parked until its next probe, or disabled (410 Gone, or failing for the whole disable period).
   * Returns whether the subscription was disabled.
   */
  private async settleFailure(
    d: ClaimedDelivery,
    record: AttemptOutcome['record'],
    verdict: Exclude<Verdict, { kind: 'success' }>,
    askedToWait: boolean,
  ): Promise<boolean> {
    return this.subscriptions.transaction(async (em) => {
      const sub = await this.subscriptions.lock(em, d.subscription_id);
      if (!sub) return false; // deleted meanwhile: its deliveries went with it
      const now = this.clock.now();
      const retry = verdict.kind === 'retry' && sub.status === 'ACTIVE';
      const nextAttemptAt = retry ? new Date(now.getTime() + verdict.delayMs) : null;
      await this.claims.settle(em, [{ record, status: retry ? 'PENDING' : 'FAILED', nextAttemptAt }]);
      if (sub.status !== 'ACTIVE') return false;
      let reason: string | null = null;
      if (verdict.kind === 'gone') {
        reason = 'the endpoint answered 410 Gone';
      } else {
        const since = await this.subscriptions.markFailing(em, sub.id, record.startedAt);
        if (now.getTime() - since.getTime() >= this.config.WEBHOOK_DISABLE_AFTER_MS) {
          reason = `every delivery failed for ${formatDuration(this.config.WEBHOOK_DISABLE_AFTER_MS)}`;
        }
      }
      if (reason) {
        await this.subscriptions.disable(em, sub.id, reason, newEventId());
        await this.housekeeping.failPending(em, sub.id, `subscription disabled: ${reason}`);
        return true;
      }
      // A Retry-After is the endpoint's own word on when to come back; otherwise the schedule.
      const wait =
        verdict.kind === 'retry' && askedToWait
          ? verdict.delayMs
          : this.schedule[Math.min(sub.probeIndex, this.schedule.length - 1)];
      await this.subscriptions.park(em, sub.id, new Date(now.getTime() + wait), now);
      return false;
    });
  }

  /**
   * Retry-backlog gauge, owed `endpoint.disabled` events, events expired behind a parked endpoint,
   * pending deliveries stranded on a disabled subscription, body retention, and signing secrets still to be sealed with the current key.
   */
  private async keepHouse(): Promise<void> {
    try {
      const backlog = await this.housekeeping.retryBacklog();
      const gauge = webhookMetrics.backlog();
      gauge.reset();
      for (const row of backlog) gauge.labels(row.subscription_id).set(Number(row.n));
      await this.notices.flush();
      const span = this.schedule.reduce((a, b) => a + b, 0);
      await this.housekeeping.expireParked(
        span,
        `the endpoint kept failing its probes for longer than the retry schedule allows (${formatDuration(2 * span)})`,
      );
      await this.housekeeping.failStranded();
      await this.housekeeping.purgePayloads(this.config.WEBHOOK_PAYLOAD_RETENTION_MS);
      while ((await this.subscriptions.reseal()) > 0);
    } catch (err) {
      if (this.running) this.logger.warn({ err: String(err) }, 'housekeeping failed');
    }
  }
}
