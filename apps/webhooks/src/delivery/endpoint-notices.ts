import { Injectable, Logger } from '@nestjs/common';
import { EventEnvelope, unixSeconds } from '@app/contracts';
import { EventPublisher } from '@app/messaging';
import { Clock } from '@app/server';
import { SubscriptionsRepository } from '../subscriptions/subscriptions.repository';

export interface EndpointDisabledData extends Record<string, unknown> {
  subscription_id: string;
  url: string;
  reason: string;
}

/**
 * Publishes the `endpoint.disabled` events owed by disabled subscriptions. The debt is recorded in
 * the same transaction that disables, and paid after commit and again by housekeeping until the
 * stream has it, so the event survives a crash or a NATS outage (the event id dedupes repeats).
 */
@Injectable()
export class EndpointNotices {
  private readonly logger = new Logger(EndpointNotices.name);
  private running?: Promise<void>;

  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly events: EventPublisher,
    private readonly clock: Clock,
  ) {}

  /** Publishes everything owed; concurrent calls share one run. */
  flush(): Promise<void> {
    this.running ??= this.publishOwed().finally(() => (this.running = undefined));
    return this.running;
  }

  private async publishOwed(): Promise<void> {
    for (const s of await this.subscriptions.unannounced()) {
      if (!s.disabledEventId) continue;
      const event: EventEnvelope<EndpointDisabledData> = {
        id: s.disabledEventId,
        type: 'endpoint.disabled',
        created_at: unixSeconds(s.disabledAt ?? this.clock.now()),
        channel: null,
        app_id: s.appId,
        user_id: s.userId,
        data: { subscription_id: s.id, url: s.url, reason: s.disabledReason ?? 'disabled' },
      };
      try {
        await this.events.publish(event);
        await this.subscriptions.markAnnounced(s.id, s.disabledEventId);
      } catch (err) {
        this.logger.warn(
          { subscription_id: s.id, err: String(err) },
          'endpoint.disabled not published yet; will retry',
        );
        return;
      }
    }
  }
}
