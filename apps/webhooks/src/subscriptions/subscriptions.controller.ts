import { Controller, Logger } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AttemptView,
  CreatedSubscriptionView,
  CreateSubscriptionRequest,
  DeliveryPage,
  DeliveryPageRequest,
  DeliveryView,
  ListAttemptsRequest,
  ListDeliveriesRequest,
  ResendRequest,
  ResendView,
  RotatedSecretView,
  RpcReply,
  SubscriptionRef,
  SUBSCRIPTIONS_RPC,
  SubscriptionView,
  TenantScoped,
  TestEventView,
  UpdateSubscriptionRequest,
} from '@app/contracts';
import { rpcAnswer } from '@app/messaging';
import { rpcProblemOf } from '@app/server';
import { SubscriptionStoreService } from './subscriptions.service';

/**
 * Request/reply handlers for the api. Domain errors travel back as data (`{ problem }`), so the api
 * answers with the same problem; anything unexpected is thrown and the api answers 502.
 */
@Controller()
export class SubscriptionsRpcController {
  private readonly logger = new Logger(SubscriptionsRpcController.name);

  constructor(private readonly subscriptions: SubscriptionStoreService) {}

  private async answer<T>(pattern: string, work: () => Promise<T>): Promise<RpcReply<T>> {
    try {
      return await rpcAnswer(work, rpcProblemOf);
    } catch (err) {
      this.logger.error({ pattern, err: String(err) }, 'subscription request failed');
      throw err;
    }
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.create)
  create(@Payload() req: CreateSubscriptionRequest): Promise<RpcReply<CreatedSubscriptionView>> {
    return this.answer(SUBSCRIPTIONS_RPC.create, () => this.subscriptions.create(req));
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.list)
  list(@Payload() req: TenantScoped): Promise<RpcReply<SubscriptionView[]>> {
    return this.answer(SUBSCRIPTIONS_RPC.list, () => this.subscriptions.list(req.user_id));
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.get)
  get(@Payload() req: SubscriptionRef): Promise<RpcReply<SubscriptionView>> {
    return this.answer(SUBSCRIPTIONS_RPC.get, () => this.subscriptions.get(req));
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.update)
  update(@Payload() req: UpdateSubscriptionRequest): Promise<RpcReply<null>> {
    return this.answer(SUBSCRIPTIONS_RPC.update, async () => {
      await this.subscriptions.update(req);
      return null;
    });
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.remove)
  remove(@Payload() req: SubscriptionRef): Promise<RpcReply<null>> {
    return this.answer(SUBSCRIPTIONS_RPC.remove, async () => {
      await this.subscriptions.remove(req);
      return null;
    });
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.rotateSecret)
  rotateSecret(@Payload() req: SubscriptionRef): Promise<RpcReply<RotatedSecretView>> {
    return this.answer(SUBSCRIPTIONS_RPC.rotateSecret, () => this.subscriptions.rotateSecret(req));
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.sendTest)
  sendTest(@Payload() req: SubscriptionRef): Promise<RpcReply<TestEventView>> {
    return this.answer(SUBSCRIPTIONS_RPC.sendTest, () => this.subscriptions.sendTest(req));
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.listAttempts)
  listAttempts(@Payload() req: ListAttemptsRequest): Promise<RpcReply<AttemptView[]>> {
    return this.answer(SUBSCRIPTIONS_RPC.listAttempts, () => this.subscriptions.listAttempts(req));
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.listDeliveries)
  listDeliveries(@Payload() req: ListDeliveriesRequest): Promise<RpcReply<DeliveryView[]>> {
    return this.answer(SUBSCRIPTIONS_RPC.listDeliveries, () => this.subscriptions.listDeliveries(req));
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.pageDeliveries)
  pageDeliveries(@Payload() req: DeliveryPageRequest): Promise<RpcReply<DeliveryPage>> {
    return this.answer(SUBSCRIPTIONS_RPC.pageDeliveries, () => this.subscriptions.pageDeliveries(req));
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.resend)
  resend(@Payload() req: ResendRequest): Promise<RpcReply<ResendView>> {
    return this.answer(SUBSCRIPTIONS_RPC.resend, () => this.subscriptions.resend(req));
  }
}
