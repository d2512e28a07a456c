import { Injectable } from '@nestjs/common';
import {
  AttemptView,
  CreatedSubscriptionView,
  DeliveryStatus,
  DeliveryView,
  EventFilter,
  normalizeEventFilter,
  ResendView,
  RotatedSecretView,
  RpcRequest,
  RpcResult,
  RpcSubject,
  SUBSCRIPTIONS_RPC,
  SubscriptionView,
  TestEventView,
} from '@app/contracts';
import { RpcClient } from '@app/messaging';
import { ValidationProblem } from '@app/server';
import { CreateSubscriptionDto } from './dto/create-subscription.dto';
import { UpdateSubscriptionDto } from './dto/update-subscription.dto';

/**
 * Forwards subscription requests to the webhooks service (which owns the data) with the caller's
 * tenant; its refusals come back as the same problems.
 */
@Injectable()
export class SubscriptionsService {
  constructor(private readonly rpc: RpcClient) {}

  private call<S extends RpcSubject>(subject: S, request: RpcRequest<S>): Promise<RpcResult<S>> {
    return this.rpc.call(subject, request, {
      unavailable: 'Event subscriptions are unavailable right now; try again shortly.',
    });
  }

  private events(value: string[] | string): EventFilter[] {
    // The DTO has validated the filter already.
    return normalizeEventFilter(value) ?? [];
  }

  create(userId: string, dto: CreateSubscriptionDto): Promise<CreatedSubscriptionView> {
    return this.call(SUBSCRIPTIONS_RPC.create, {
      user_id: userId,
      url: dto.url,
      events: this.events(dto.events),
      app_id: dto.app_id ?? null,
      description: dto.description ?? null,
    });
  }

  list(userId: string): Promise<SubscriptionView[]> {
    return this.call(SUBSCRIPTIONS_RPC.list, { user_id: userId });
  }

  get(userId: string, id: string): Promise<SubscriptionView> {
    return this.call(SUBSCRIPTIONS_RPC.get, { user_id: userId, subscription_id: id });
  }

  async update(userId: string, id: string, dto: UpdateSubscriptionDto): Promise<void> {
    const given = Object.entries(dto).filter(([, v]) => v !== undefined);
    if (given.length === 0) {
      throw new ValidationProblem(
        [{ field: 'body', message: 'give at least one of url, events, app_id, description, enabled' }],
        'Nothing to update.',
      );
    }
    await this.call(SUBSCRIPTIONS_RPC.update, {
      user_id: userId,
      subscription_id: id,
      ...(dto.url !== undefined ? { url: dto.url } : {}),
      ...(dto.events !== undefined ? { events: this.events(dto.events) } : {}),
      ...(dto.app_id !== undefined ? { app_id: dto.app_id } : {}),
      ...(dto.description !== undefined ? { description: dto.description } : {}),
      ...(dto.enabled !== undefined ? { enabled: dto.enabled } : {}),
    });
  }

  async remove(userId: string, id: string): Promise<void> {
    await this.call(SUBSCRIPTIONS_RPC.remove, { user_id: userId, subscription_id: id });
  }

  rotateSecret(userId: string, id: string): Promise<RotatedSecretView> {
    return this.call(SUBSCRIPTIONS_RPC.rotateSecret, { user_id: userId, subscription_id: id });
  }

  sendTest(userId: string, id: string): Promise<TestEventView> {
    return this.call(SUBSCRIPTIONS_RPC.sendTest, { user_id: userId, subscription_id: id });
  }

  listAttempts(userId: string, id: string, limit?: number): Promise<AttemptView[]> {
    return this.call(SUBSCRIPTIONS_RPC.listAttempts, { user_id: userId, subscription_id: id, limit });
  }

  listDeliveries(userId: string, id: string, limit?: number, status?: DeliveryStatus): Promise<DeliveryView[]> {
    return this.call(SUBSCRIPTIONS_RPC.listDeliveries, { user_id: userId, subscription_id: id, limit, status });
  }

  resend(userId: string, id: string, deliveryId: string): Promise<ResendView> {
    return this.call(SUBSCRIPTIONS_RPC.resend, { user_id: userId, subscription_id: id, delivery_id: deliveryId });
  }
}
