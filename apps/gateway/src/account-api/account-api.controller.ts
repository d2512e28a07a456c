import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../accounts/authenticated-account';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';
import {
  BalanceDto,
  CreatedWebhookDto,
  CreateWebhookDto,
  RotatedWebhookSecretDto,
  TransactionPageDto,
  TransactionsQueryDto,
  WebhookDeliveriesQueryDto,
  WebhookDeliveryPageDto,
  WebhookDto,
  WebhookResendDto,
} from './account-api.dto';
import { AccountApiService } from './account-api.service';

/** The balance and transactions of the account's api user: `GET /v1/balance`, `GET /v1/transactions`. */
@ApiTags('billing')
@ApiAccountToken()
@Controller('v1')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class BillingController {
  constructor(private readonly api: AccountApiService) {}

  @Get('balance')
  @ApiOperation({ summary: "The available balance of the account's user" })
  @ApiOkResponse({ type: BalanceDto })
  @ApiProblems(404, 422)
  balance(@CurrentAccount() account: AuthenticatedAccount): Promise<BalanceDto> {
    return this.api.balance(account);
  }

  @Get('transactions')
  @ApiOperation({ summary: "The user's transactions since start_date, oldest first, a page at a time" })
  @ApiOkResponse({ type: TransactionPageDto })
  @ApiProblems(400, 404, 422)
  transactions(
    @CurrentAccount() account: AuthenticatedAccount,
    @Query() query: TransactionsQueryDto,
  ): Promise<TransactionPageDto> {
    return this.api.transactions(account, query);
  }
}

/** The webhook subscriptions of the account's api user: `/v1/webhooks`. */
@ApiTags('webhooks')
@ApiAccountToken()
@Controller('v1/webhooks')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class WebhooksController {
  constructor(private readonly api: AccountApiService) {}

  @Get()
  @ApiOperation({ summary: "The user's webhook subscriptions" })
  @ApiOkResponse({ type: [WebhookDto] })
  @ApiProblems(404, 422)
  list(@CurrentAccount() account: AuthenticatedAccount): Promise<WebhookDto[]> {
    return this.api.listWebhooks(account) as Promise<WebhookDto[]>;
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Subscribe an endpoint to events; the answer shows the signing secret once' })
  @ApiCreatedResponse({ type: CreatedWebhookDto })
  @ApiProblems(404, 422)
  create(@CurrentAccount() account: AuthenticatedAccount, @Body() dto: CreateWebhookDto): Promise<CreatedWebhookDto> {
    return this.api.createWebhook(account, dto) as Promise<CreatedWebhookDto>;
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({ summary: 'A new signing secret; the previous one keeps signing for a while' })
  @ApiOkResponse({ type: RotatedWebhookSecretDto })
  @ApiProblems(404, 422)
  rotateSecret(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('id') id: string,
  ): Promise<RotatedWebhookSecretDto> {
    return this.api.rotateSecret(account, id);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: 'The deliveries to the endpoint, newest first, each with its attempts; cursor-paged' })
  @ApiOkResponse({ type: WebhookDeliveryPageDto })
  @ApiProblems(400, 404, 422)
  deliveries(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('id') id: string,
    @Query() query: WebhookDeliveriesQueryDto,
  ): Promise<WebhookDeliveryPageDto> {
    return this.api.deliveries(account, id, query);
  }

  @Post(':id/deliveries/:deliveryId/resend')
  @HttpCode(202)
  @ApiOperation({ summary: 'Deliver an event again (a new delivery of the same event)' })
  @ApiAcceptedResponse({ type: WebhookResendDto })
  @ApiProblems(404, 409, 422)
  resend(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<WebhookResendDto> {
    return this.api.resend(account, id, deliveryId);
  }
}
