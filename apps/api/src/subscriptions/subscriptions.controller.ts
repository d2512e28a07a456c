import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import type {
  AttemptView,
  CreatedSubscriptionView,
  DeliveryView,
  ResendView,
  RotatedSecretView,
  SubscriptionView,
  TestEventView,
} from '@app/contracts';
import { AuthenticatedUser, CurrentUser, SystemTokenGuard } from '../auth';
import { RateLimitGuard } from '../rate-limit';
import { CreateSubscriptionDto } from './dto/create-subscription.dto';
import { ListAttemptsDto } from './dto/list-attempts.dto';
import { ListDeliveriesDto } from './dto/list-deliveries.dto';
import { UpdateSubscriptionDto } from './dto/update-subscription.dto';
import { SubscriptionsService } from './subscriptions.service';

/** Event subscriptions (webhooks) of the caller's tenant. */
@Controller('v1/subscriptions')
@UseGuards(SystemTokenGuard, RateLimitGuard)
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @Post()
  @HttpCode(201)
  create(@CurrentUser() user: AuthenticatedUser, @Body() dto: CreateSubscriptionDto): Promise<CreatedSubscriptionView> {
    return this.subscriptions.create(user.id, dto);
  }

  @Get()
  list(@CurrentUser() user: AuthenticatedUser): Promise<SubscriptionView[]> {
    return this.subscriptions.list(user.id);
  }

  @Get(':id')
  get(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string): Promise<SubscriptionView> {
    return this.subscriptions.get(user.id, id);
  }

  @Patch(':id')
  @HttpCode(204)
  update(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id') id: string,
    @Body() dto: UpdateSubscriptionDto,
  ): Promise<void> {
    return this.subscriptions.update(user.id, id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  remove(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string): Promise<void> {
    return this.subscriptions.remove(user.id, id);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  rotateSecret(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string): Promise<RotatedSecretView> {
    return this.subscriptions.rotateSecret(user.id, id);
  }

  @Post(':id/test')
  @HttpCode(202)
  sendTest(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string): Promise<TestEventView> {
    return this.subscriptions.sendTest(user.id, id);
  }

  @Get(':id/attempts')
  listAttempts(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id') id: string,
    @Query() query: ListAttemptsDto,
  ): Promise<AttemptView[]> {
    return this.subscriptions.listAttempts(user.id, id, query.limit);
  }

  @Get(':id/deliveries')
  listDeliveries(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id') id: string,
    @Query() query: ListDeliveriesDto,
  ): Promise<DeliveryView[]> {
    return this.subscriptions.listDeliveries(user.id, id, query.limit, query.status);
  }

  @Post(':id/deliveries/:deliveryId/resend')
  @HttpCode(202)
  resend(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<ResendView> {
    return this.subscriptions.resend(user.id, id, deliveryId);
  }
}
