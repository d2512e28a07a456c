import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
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
import { ApiProblems, ApiSystemToken } from '../openapi/api-problems.decorator';
import { RateLimitGuard } from '../rate-limit';
import { CreateSubscriptionDto } from './dto/create-subscription.dto';
import { ListAttemptsDto } from './dto/list-attempts.dto';
import { ListDeliveriesDto } from './dto/list-deliveries.dto';
import {
  AttemptDto,
  CreatedSubscriptionDto,
  DeliveryDto,
  ResendDto,
  RotatedSecretDto,
  SubscriptionDto,
  TestEventDto,
} from './dto/subscription-views.dto';
import { UpdateSubscriptionDto } from './dto/update-subscription.dto';
import { SubscriptionsService } from './subscriptions.service';

/** Event subscriptions (webhooks) of the caller's tenant. */
@ApiTags('Subscriptions')
@ApiSystemToken()
@Controller('v1/subscriptions')
@UseGuards(SystemTokenGuard, RateLimitGuard)
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Subscribe an endpoint to events; the answer shows the signing secret once' })
  @ApiCreatedResponse({ type: CreatedSubscriptionDto })
  @ApiProblems(400)
  create(@CurrentUser() user: AuthenticatedUser, @Body() dto: CreateSubscriptionDto): Promise<CreatedSubscriptionView> {
    return this.subscriptions.create(user.id, dto);
  }

  @Get()
  @ApiOperation({ summary: "The tenant's subscriptions" })
  @ApiOkResponse({ type: [SubscriptionDto] })
  list(@CurrentUser() user: AuthenticatedUser): Promise<SubscriptionView[]> {
    return this.subscriptions.list(user.id);
  }

  @Get(':id')
  @ApiOperation({ summary: 'A subscription' })
  @ApiOkResponse({ type: SubscriptionDto })
  @ApiProblems(400, 404)
  get(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string): Promise<SubscriptionView> {
    return this.subscriptions.get(user.id, id);
  }

  @Patch(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Change a subscription; what is omitted is kept, enabled re-enables or disables it' })
  @ApiNoContentResponse({ description: 'Updated' })
  @ApiProblems(400, 404)
  update(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id') id: string,
    @Body() dto: UpdateSubscriptionDto,
  ): Promise<void> {
    return this.subscriptions.update(user.id, id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a subscription' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblems(400, 404)
  remove(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string): Promise<void> {
    return this.subscriptions.remove(user.id, id);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({ summary: 'A new signing secret; the previous one keeps signing for a while' })
  @ApiOkResponse({ type: RotatedSecretDto })
  @ApiProblems(400, 404)
  rotateSecret(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string): Promise<RotatedSecretView> {
    return this.subscriptions.rotateSecret(user.id, id);
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send a test event to the endpoint' })
  @ApiAcceptedResponse({ type: TestEventDto })
  @ApiProblems(400, 404, 409)
  sendTest(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string): Promise<TestEventView> {
    return this.subscriptions.sendTest(user.id, id);
  }

  @Get(':id/attempts')
  @ApiOperation({ summary: 'The latest delivery attempts to the endpoint, newest first' })
  @ApiOkResponse({ type: [AttemptDto] })
  @ApiProblems(400, 404)
  listAttempts(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id') id: string,
    @Query() query: ListAttemptsDto,
  ): Promise<AttemptView[]> {
    return this.subscriptions.listAttempts(user.id, id, query.limit);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: 'The latest deliveries to the endpoint, newest first' })
  @ApiOkResponse({ type: [DeliveryDto] })
  @ApiProblems(400, 404)
  listDeliveries(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id') id: string,
    @Query() query: ListDeliveriesDto,
  ): Promise<DeliveryView[]> {
    return this.subscriptions.listDeliveries(user.id, id, query.limit, query.status);
  }

  @Post(':id/deliveries/:deliveryId/resend')
  @HttpCode(202)
  @ApiOperation({ summary: 'Deliver an event again (a new delivery of the same event)' })
  @ApiAcceptedResponse({ type: ResendDto })
  @ApiProblems(400, 404, 409)
  resend(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<ResendView> {
    return this.subscriptions.resend(user.id, id, deliveryId);
  }
}
