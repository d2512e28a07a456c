import { Injectable } from '@nestjs/common';
import {
  DeliveryStatus,
  GATEWAY_ACCOUNT_RPC,
  GATEWAY_TRANSACTIONS_PAGE,
  GatewayBalance,
  GatewayTransactionsPage,
  GatewayWebhookCall,
  GatewayWebhooksRequest,
  GatewayWebhooksResult,
  isUuid,
  normalizeEventFilter,
  SUBSCRIPTION_LIMITS,
} from '@app/contracts';
import { RpcClient } from '@app/messaging';
import { Clock, NotFoundProblem, ValidationProblem } from '@app/server';
import { AuthenticatedAccount, billedUser } from '../accounts/authenticated-account';
import { CreateWebhookDto, WebhookDeliveryDto } from './account-api.dto';

const DAY_MS = 86_400_000;
/** The period of `GET /v1/transactions` without a start_date. */
const DEFAULT_TRANSACTION_DAYS = 90;

/**
 * What the account's api user holds that the account reads and manages through the gateway:
 * balance, transactions and webhook subscriptions, asked of the api over request/reply.
 */
@Injectable()
export class AccountApiService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly clock: Clock,
  ) {}

  balance(account: AuthenticatedAccount): Promise<GatewayBalance> {
    return this.rpc.call(
      GATEWAY_ACCOUNT_RPC.balance,
      { user_id: billedUser(account, 'no balance') },
      { unavailable: 'The balance cannot be read right now; retry later.' },
    );
  }

  transactions(
    account: AuthenticatedAccount,
    q: { start_date?: string; cursor?: string; limit?: string },
  ): Promise<GatewayTransactionsPage> {
    const limit = q.limit ? Number(q.limit) : GATEWAY_TRANSACTIONS_PAGE.default;
    if (limit > GATEWAY_TRANSACTIONS_PAGE.max) {
      throw new ValidationProblem([
        { field: 'limit', message: `limit must be a whole number from 1 to ${GATEWAY_TRANSACTIONS_PAGE.max}` },
      ]);
    }
    const start =
      q.start_date ?? new Date(this.clock.nowMs() - DEFAULT_TRANSACTION_DAYS * DAY_MS).toISOString().slice(0, 10);
    return this.rpc.call(
      GATEWAY_ACCOUNT_RPC.transactions,
      {
        user_id: billedUser(account, 'no transactions'),
        start_date: start,
        limit,
        ...(q.cursor ? { cursor: q.cursor } : {}),
      },
      { unavailable: 'Transactions cannot be read right now; retry later.' },
    );
  }

  private async webhooks<C extends GatewayWebhookCall>(
    account: AuthenticatedAccount,
    call: C,
    request: Omit<GatewayWebhooksRequest<C>['request'], 'user_id'>,
  ): Promise<GatewayWebhooksResult<C>> {
    const user_id = billedUser(account, 'no webhook subscriptions');
    return (await this.rpc.call(
      GATEWAY_ACCOUNT_RPC.webhooks,
      { call, request: { ...request, user_id } } as GatewayWebhooksRequest,
      { unavailable: 'Webhook subscriptions are unavailable right now; try again shortly.' },
    )) as GatewayWebhooksResult<C>;
  }

  listWebhooks(account: AuthenticatedAccount): Promise<GatewayWebhooksResult<'list'>> {
    return this.webhooks(account, 'list', {});
  }

  createWebhook(account: AuthenticatedAccount, dto: CreateWebhookDto): Promise<GatewayWebhooksResult<'create'>> {
    const events = normalizeEventFilter(dto.events);
    if (!events) {
      throw new ValidationProblem([
        { field: 'events', message: 'events must be "*" or a non-empty list of event types' },
      ]);
    }
    return this.webhooks(account, 'create', {
      url: dto.url,
      events,
      app_id: null,
      description: dto.description ?? null,
    });
  }

  rotateSecret(account: AuthenticatedAccount, id: string): Promise<GatewayWebhooksResult<'rotateSecret'>> {
    return this.webhooks(account, 'rotateSecret', { subscription_id: webhookId(id) });
  }

  /**
   * A page of the endpoint's deliveries, newest first, each with its latest attempts; the
   * webhooks service bounds it in rows and bytes and names the next page's cursor.
   */
  async deliveries(
    account: AuthenticatedAccount,
    id: string,
    q: { cursor?: string; limit?: string; status?: DeliveryStatus },
  ): Promise<{ data: WebhookDeliveryDto[]; next_cursor: string | null }> {
    const page = await this.webhooks(account, 'pageDeliveries', {
      subscription_id: webhookId(id),
      limit: q.limit ? Number(q.limit) : SUBSCRIPTION_LIMITS.listDefault,
      ...(q.cursor ? { cursor: q.cursor } : {}),
      ...(q.status ? { status: q.status } : {}),
    });
    return {
      data: page.data.map((d) => ({
        ...d,
        attempt_log: d.attempt_log.map((a) => ({
          id: a.id,
          attempt: a.attempt,
          status: a.status,
          response_status: a.response_status,
          latency_ms: a.latency_ms,
          response_excerpt: a.response_excerpt,
          error: a.error,
          next_retry_at: a.next_retry_at,
          created_at: a.created_at,
        })),
      })),
      next_cursor: page.next_cursor,
    };
  }

  resend(account: AuthenticatedAccount, id: string, deliveryId: string): Promise<GatewayWebhooksResult<'resend'>> {
    if (!isUuid(deliveryId)) throw new NotFoundProblem('delivery');
    return this.webhooks(account, 'resend', { subscription_id: webhookId(id), delivery_id: deliveryId });
  }
}

function webhookId(id: string): string {
  if (!isUuid(id)) throw new NotFoundProblem('webhook subscription');
  return id;
}
