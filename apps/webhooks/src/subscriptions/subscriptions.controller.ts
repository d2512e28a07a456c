import { Controller, Logger } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AttemptView,
  CreatedSubscriptionView,
  CreateSubscriptionRequest,
  DeliveryView,
  ListAttemptsRequest,
  ListDeliveriesRequest,
  ResendRequest,
  ResendView,
  RotatedSecretView,
  RpcResult,
  SubscriptionRef,
  SUBSCRIPTIONS_RPC,
  SubscriptionView,
  TenantScoped,
  TestEventView,
  UpdateSubscriptionRequest,
} from '@app/contracts';
import { FieldError, ProblemError } from '@app/server';
import { SubscriptionsService } from './subscriptions.service';

/**
 * Request/reply handlers for the api. Domain errors travel back as data (`{ error }`), so the api
 * answers with the same problem; anything unexpected is thrown and surfaces as a 500 there.
 */
@Controller()
export class SubscriptionsController {
  private readonly logger = new Logger(SubscriptionsController.name);

  constructor(private readonly subscriptions: SubscriptionsService) {}

  private async answer<T>(pattern: string, work: () => Promise<T>): Promise<RpcResult<T>> {
    try {
      return { result: await work() };
    } catch (err) {
      if (err instanceof ProblemError) {
        const errors = err.extensions.errors as FieldError[] | undefined;
        return {
          error: {
            status: err.status,
            slug: err.slug,
            title: err.title,
            ...(err.detail ? { detail: err.detail } : {}),
            ...(errors ? { errors } : {}),
          },
        };
      }
      this.logger.error({ pattern, err: String(err) }, 'subscription request failed');
      throw err;
    }
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.create)
  create(@Payload() req: CreateSubscriptionRequest): Promise<RpcResult<CreatedSubscriptionView>> {
    return this.answer(SUBSCRIPTIONS_RPC.create, () => this.subscriptions.create(req));
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.list)
  list(@Payload() req: TenantScoped): Promise<RpcResult<SubscriptionView[]>> {
    return this.answer(SUBSCRIPTIONS_RPC.list, () => this.subscriptions.list(req.user_id));
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.get)
  get(@Payload() req: SubscriptionRef): Promise<RpcResult<SubscriptionView>> {
    return this.answer(SUBSCRIPTIONS_RPC.get, () => this.subscriptions.get(req));
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.update)
  update(@Payload() req: UpdateSubscriptionRequest): Promise<RpcResult<null>> {
    return this.answer(SUBSCRIPTIONS_RPC.update, async () => {
      await this.subscriptions.update(req);
      return null;
    });
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.remove)
  remove(@Payload() req: SubscriptionRef): Promise<RpcResult<null>> {
    return this.answer(SUBSCRIPTIONS_RPC.remove, async () => {
      await this.subscriptions.remove(req);
      return null;
    });
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.rotateSecret)
  rotateSecret(@Payload() req: SubscriptionRef): Promise<RpcResult<RotatedSecretView>> {
    return this.answer(SUBSCRIPTIONS_RPC.rotateSecret, () => this.subscriptions.rotateSecret(req));
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.sendTest)
  sendTest(@Payload() req: SubscriptionRef): Promise<RpcResult<TestEventView>> {
    return this.answer(SUBSCRIPTIONS_RPC.sendTest, () => this.subscriptions.sendTest(req));
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.listAttempts)
  listAttempts(@Payload() req: ListAttemptsRequest): Promise<RpcResult<AttemptView[]>> {
    return this.answer(SUBSCRIPTIONS_RPC.listAttempts, () => this.subscriptions.listAttempts(req));
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.listDeliveries)
  listDeliveries(@Payload() req: ListDeliveriesRequest): Promise<RpcResult<DeliveryView[]>> {
    return this.answer(SUBSCRIPTIONS_RPC.listDeliveries, () => this.subscriptions.listDeliveries(req));
  }

  @MessagePattern(SUBSCRIPTIONS_RPC.resend)
  resend(@Payload() req: ResendRequest): Promise<RpcResult<ResendView>> {
    return this.answer(SUBSCRIPTIONS_RPC.resend, () => this.subscriptions.resend(req));
  }
}
