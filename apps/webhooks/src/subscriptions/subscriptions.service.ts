import { Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import {
  AttemptView,
  CreatedSubscriptionView,
  CreateSubscriptionRequest,
  DELIVERY_PAGE_ATTEMPTS,
  DELIVERY_STATUSES,
  DeliveryPage,
  DeliveryPageRequest,
  DeliveryView,
  EventEnvelope,
  isUuid,
  ListAttemptsRequest,
  ListDeliveriesRequest,
  newEventId,
  newMessageId,
  normalizeEventFilter,
  ResendRequest,
  ResendView,
  RotatedSecretView,
  SUBSCRIPTION_LIMITS,
  SubscriptionRef,
  SubscriptionView,
  TestEventView,
  unixSeconds,
  UpdateSubscriptionRequest,
} from '@app/contracts';
import { Clock, ConflictProblem, FieldError, NotFoundProblem, ValidationProblem } from '@app/server';
import { WebhooksConfig } from '../config';
import { DeliveryAttemptEntity } from '../delivery/delivery-attempt.entity';
import { DeliveryDispatcher } from '../delivery/delivery-dispatcher';
import { DeliveryHistoryRepository } from '../delivery/delivery-history.repository';
import { DeliveryHousekeepingRepository } from '../delivery/delivery-housekeeping.repository';
import { DeliveryEntity } from '../delivery/delivery.entity';
import { webhookBody } from '../delivery/events.consumer';
import { FanOutRepository } from '../delivery/fan-out.repository';
import { TargetPolicy } from '@app/egress';
import { cutDeliveryPage, DELIVERY_PAGE_BYTES } from './delivery-page';
import { newSigningSecret } from './subscription-secret';
import { SubscriptionEntity } from './subscription.entity';
import { SubscriptionChanges, SubscriptionsRepository } from './subscriptions.repository';

const seconds = (d: Date | null): number | null => (d ? unixSeconds(d) : null);

export function toSubscriptionView(s: SubscriptionEntity, now: Date): SubscriptionView {
  const graceOpen = s.previousSecret && s.previousSecretExpiresAt && s.previousSecretExpiresAt > now;
  return {
    id: s.id,
    url: s.url,
    events: s.events,
    app_id: s.appId,
    description: s.description,
    status: s.status,
    disabled_reason: s.disabledReason,
    disabled_at: seconds(s.disabledAt),
    previous_secret_expires_at: graceOpen ? seconds(s.previousSecretExpiresAt) : null,
    created_at: unixSeconds(s.createdAt),
    updated_at: unixSeconds(s.updatedAt),
  };
}

function toDeliveryView(d: DeliveryEntity): DeliveryView {
  return {
    id: d.id,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === 'PENDING' ? seconds(d.nextAttemptAt) : null,
    last_attempt_at: seconds(d.lastAttemptAt),
    last_response_status: d.lastResponseStatus,
    last_error: d.lastError,
    created_at: unixSeconds(d.createdAt),
  };
}

function toAttemptView(a: DeliveryAttemptEntity): AttemptView {
  return {
    id: a.id,
    delivery_id: a.deliveryId,
    event_id: a.eventId,
    event_type: a.eventType,
    attempt: a.attempt,
    status: a.status,
    response_status: a.responseStatus,
    latency_ms: a.latencyMs,
    response_excerpt: a.responseExcerpt,
    error: a.error,
    next_retry_at: seconds(a.nextRetryAt),
    created_at: unixSeconds(a.createdAt),
  };
}

/** The rules of subscriptions: validation, tenancy, secrets, test events and resends. */
@Injectable()
export class SubscriptionStoreService {
  constructor(
    private readonly config: WebhooksConfig,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly history: DeliveryHistoryRepository,
    private readonly fanOut: FanOutRepository,
    private readonly housekeeping: DeliveryHousekeepingRepository,
    private readonly policy: TargetPolicy,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly clock: Clock,
  ) {}

  async create(req: CreateSubscriptionRequest): Promise<CreatedSubscriptionView> {
    const changes = await this.validate(req, true);
    const secret = newSigningSecret();
    const max = this.config.WEBHOOK_MAX_SUBSCRIPTIONS_PER_USER;
    const created = await this.subscriptions.create(
      {
        id: uuidv7(),
        userId: req.user_id,
        url: changes.url!,
        events: changes.events!,
        appId: changes.appId ?? null,
        description: changes.description ?? null,
        secret,
      },
      max,
    );
    if (!created) {
      throw new ConflictProblem(
        'subscription-limit-reached',
        'Subscription limit reached',
        `A user may have at most ${max} subscriptions; delete one before creating another.`,
      );
    }
    return { ...toSubscriptionView(created, this.clock.now()), secret };
  }

  async list(userId: string): Promise<SubscriptionView[]> {
    const now = this.clock.now();
    return (await this.subscriptions.listForTenant(userId)).map((s) => toSubscriptionView(s, now));
  }

  async get(ref: SubscriptionRef): Promise<SubscriptionView> {
    return toSubscriptionView(await this.owned(ref), this.clock.now());
  }

  async update(req: UpdateSubscriptionRequest): Promise<void> {
    await this.owned(req);
    const changes = await this.validate(req, false);
    if (req.enabled !== undefined && typeof req.enabled !== 'boolean') {
      throw new ValidationProblem([{ field: 'enabled', message: 'enabled must be a boolean' }]);
    }
    let enabled = false;
    await this.subscriptions.transaction(async (em) => {
      const sub = await this.subscriptions.lock(em, req.subscription_id);
      if (!sub) throw new NotFoundProblem('subscription');
      await this.subscriptions.update(em, sub.id, changes);
      if (req.enabled === true && sub.status === 'DISABLED') {
        await this.subscriptions.enable(em, sub.id);
        enabled = true;
      }
      if (req.enabled === false && sub.status === 'ACTIVE') {
        // Turned off by its owner: no endpoint.disabled event, they know.
        await this.subscriptions.disable(em, sub.id, 'disabled by the user', null);
        await this.housekeeping.failPending(em, sub.id, 'subscription disabled by the user');
      }
    });
    if (enabled) this.dispatcher.wake();
  }

  async remove(ref: SubscriptionRef): Promise<void> {
    if (!isUuid(ref.subscription_id) || !(await this.subscriptions.remove(ref.user_id, ref.subscription_id))) {
      throw new NotFoundProblem('subscription');
    }
  }

  async rotateSecret(ref: SubscriptionRef): Promise<RotatedSecretView> {
    await this.owned(ref);
    const secret = newSigningSecret();
    const expires = await this.subscriptions.transaction((em) =>
      this.subscriptions.rotateSecret(em, ref.subscription_id, secret, this.config.WEBHOOK_ROTATION_GRACE_MS),
    );
    return {
      id: ref.subscription_id,
      secret,
      previous_secret_expires_at: expires ? unixSeconds(expires) : unixSeconds(this.clock.now()),
    };
  }

  /** A sample `message.delivered` event marked `data.test: true`, sent through the normal path. */
  async sendTest(ref: SubscriptionRef): Promise<TestEventView> {
    const sub = await this.owned(ref);
    this.requireActive(sub);
    const now = this.clock.now();
    const event: EventEnvelope = {
      id: newEventId(),
      type: 'message.delivered',
      created_at: unixSeconds(now),
      channel: 'whatsapp',
      app_id: sub.appId,
      data: {
        test: true,
        message_id: newMessageId(),
        recipient: '79990001122',
        status: 'DELIVERED',
        provider_message_id: null,
        category: 'UTILITY',
        error: null,
        timestamp: unixSeconds(now),
      },
    };
    const deliveryId = await this.fanOut.insertOne(sub.id, {
      eventId: event.id,
      type: event.type,
      createdAt: now,
      payload: webhookBody(event),
    });
    this.dispatcher.wake();
    return { event_id: event.id, delivery_id: deliveryId };
  }

  async listAttempts(req: ListAttemptsRequest): Promise<AttemptView[]> {
    await this.owned(req);
    const rows = await this.history.listAttempts(req.subscription_id, this.limit(req.limit));
    return rows.map(toAttemptView);
  }

  async listDeliveries(req: ListDeliveriesRequest): Promise<DeliveryView[]> {
    await this.owned(req);
    this.requireStatus(req);
    const rows = await this.history.listDeliveries(req.subscription_id, this.limit(req.limit), req.status);
    return rows.map(toDeliveryView);
  }

  /**
   * A page of the subscription's deliveries, newest first, each with its latest attempts: after
   * the delivery `cursor` names, bounded in rows (`limit`) and in bytes (one NATS answer).
   */
  async pageDeliveries(req: DeliveryPageRequest): Promise<DeliveryPage> {
    const sub = await this.owned(req);
    this.requireStatus(req);
    const limit = this.limit(req.limit);
    let beforeSeq: string | undefined;
    if (req.cursor !== undefined) {
      const after = isUuid(req.cursor) ? await this.history.findForSubscription(sub.id, req.cursor) : null;
      if (!after) {
        throw new ValidationProblem([
          { field: 'cursor', message: 'cursor must be the next_cursor of a previous page' },
        ]);
      }
      beforeSeq = after.delivery.seq;
    }
    const rows = await this.history.listDeliveries(sub.id, limit + 1, req.status, beforeSeq);
    const attempts = await this.history.attemptsOf(
      rows.slice(0, limit).map((d) => d.id),
      DELIVERY_PAGE_ATTEMPTS,
    );
    const byDelivery = new Map<string, AttemptView[]>();
    for (const a of attempts) byDelivery.set(a.deliveryId, [...(byDelivery.get(a.deliveryId) ?? []), toAttemptView(a)]);
    return cutDeliveryPage(
      rows.map((d) => ({ ...toDeliveryView(d), attempt_log: byDelivery.get(d.id) ?? [] })),
      limit,
      DELIVERY_PAGE_BYTES,
    );
  }

  async resend(req: ResendRequest): Promise<ResendView> {
    const sub = await this.owned(req);
    const found = isUuid(req.delivery_id) ? await this.history.findForSubscription(sub.id, req.delivery_id) : null;
    if (!found) throw new NotFoundProblem('delivery');
    this.requireActive(sub);
    const { delivery, held } = found;
    // A held delivery is already in line: it goes once the endpoint answers its probe.
    if (!held && !(await this.history.requeue(delivery.id))) {
      throw new ConflictProblem(
        'delivery-expired',
        'Delivery expired',
        'The event body is past its retention period and can no longer be resent.',
      );
    }
    this.dispatcher.wake();
    return { delivery_id: delivery.id, status: 'PENDING' };
  }

  private requireStatus(req: ListDeliveriesRequest): void {
    if (req.status !== undefined && !DELIVERY_STATUSES.includes(req.status)) {
      throw new ValidationProblem([
        { field: 'status', message: `status must be one of ${DELIVERY_STATUSES.join(', ')}` },
      ]);
    }
  }

  private limit(given: number | undefined): number {
    if (given === undefined) return SUBSCRIPTION_LIMITS.listDefault;
    if (!Number.isInteger(given) || given < 1 || given > SUBSCRIPTION_LIMITS.listMax) {
      throw new ValidationProblem([
        { field: 'limit', message: `limit must be an integer from 1 to ${SUBSCRIPTION_LIMITS.listMax}` },
      ]);
    }
    return given;
  }

  private requireActive(sub: SubscriptionEntity): void {
    if (sub.status !== 'ACTIVE') {
      throw new ConflictProblem(
        'subscription-disabled',
        'Subscription disabled',
        `The subscription is disabled (${sub.disabledReason ?? 'disabled'}); enable it first with PATCH {"enabled": true}.`,
      );
    }
  }

  /** Another tenant's subscription is "not found", never "forbidden": its existence is not revealed. */
  private async owned(ref: SubscriptionRef): Promise<SubscriptionEntity> {
    const sub = isUuid(ref.subscription_id)
      ? await this.subscriptions.findForTenant(ref.user_id, ref.subscription_id)
      : null;
    if (!sub) throw new NotFoundProblem('subscription');
    return sub;
  }

  private async validate(
    req: Partial<Pick<CreateSubscriptionRequest, 'url' | 'events' | 'app_id' | 'description'>>,
    creating: boolean,
  ): Promise<SubscriptionChanges> {
    const errors: FieldError[] = [];
    const changes: SubscriptionChanges = {};
    if (req.url !== undefined || creating) {
      if (typeof req.url !== 'string') {
        errors.push({ field: 'url', message: 'url must be a string' });
      } else {
        const check = await this.policy.check(req.url);
        if (check.ok) changes.url = check.url.toString();
        else errors.push({ field: 'url', message: `url ${check.reason}` });
      }
    }
    if (req.events !== undefined || creating) {
      const events = normalizeEventFilter(req.events);
      if (events) changes.events = events;
      else errors.push({ field: 'events', message: 'events must be "*" or a non-empty list of event types' });
    }
    if (req.app_id !== undefined) {
      if (req.app_id === null || (Number.isInteger(req.app_id) && req.app_id > 0 && req.app_id <= 2_147_483_647)) {
        changes.appId = req.app_id;
      } else {
        errors.push({ field: 'app_id', message: 'app_id must be a positive integer or null' });
      }
    }
    if (req.description !== undefined) {
      if (
        req.description === null ||
        (typeof req.description === 'string' && req.description.length <= SUBSCRIPTION_LIMITS.descriptionMaxLength)
      ) {
        changes.description = req.description;
      } else {
        errors.push({
          field: 'description',
          message: `description must be a string of at most ${SUBSCRIPTION_LIMITS.descriptionMaxLength} characters`,
        });
      }
    }
    if (errors.length) throw new ValidationProblem(errors);
    return changes;
  }
}
