import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  GATEWAY_ACCOUNT_RPC,
  GATEWAY_TRANSACTIONS_PAGE,
  GATEWAY_WEBHOOK_CALLS,
  GatewayBalance,
  GatewayBalanceRequest,
  GatewayTransactionsPage,
  GatewayTransactionsRequest,
  GatewayWebhooksRequest,
  isUuid,
  RpcReply,
  SUBSCRIPTIONS_RPC,
} from '@app/contracts';
import { RpcClient, rpcAnswer, RpcProblemError } from '@app/messaging';
import { isCalendarDate, NotFoundProblem, rpcProblemOf, ValidationProblem } from '@app/server';
import { UsersRepository } from './users.repository';
import { TRANSACTIONS_CURSOR } from './dto/list-transactions.query';
import { UsersService } from './users.service';

/**
 * Request/reply for the gateway's accounts (its `/v1/balance`, `/v1/transactions` and
 * `/v1/webhooks`, docs/console.md): the balance and transactions of the account's user, and its
 * subscription calls forwarded to the webhooks service, whose answers and problems come back as they are.
 */
@Controller()
export class GatewayAccountRpcController {
  constructor(
    private readonly users: UsersService,
    private readonly repository: UsersRepository,
    private readonly rpc: RpcClient,
  ) {}

  private async userOf(userId: unknown) {
    const user = isUuid(userId) ? await this.repository.findUser(userId) : null;
    if (!user) throw new NotFoundProblem('user');
    return user;
  }

  @MessagePattern(GATEWAY_ACCOUNT_RPC.balance)
  balance(@Payload() req: GatewayBalanceRequest): Promise<RpcReply<GatewayBalance>> {
    return rpcAnswer(async () => {
      const user = await this.userOf(req?.user_id);
      return this.users.balance(user.id, user.currency);
    }, rpcProblemOf);
  }

  /** One page of transactions, read whole: at most GATEWAY_TRANSACTIONS_PAGE.max of them. */
  @MessagePattern(GATEWAY_ACCOUNT_RPC.transactions)
  transactions(@Payload() req: GatewayTransactionsRequest): Promise<RpcReply<GatewayTransactionsPage>> {
    return rpcAnswer(async () => {
      const user = await this.userOf(req?.user_id);
      const limit = req.limit;
      if (
        !isCalendarDate(req.start_date) ||
        !Number.isSafeInteger(limit) ||
        limit < 1 ||
        limit > GATEWAY_TRANSACTIONS_PAGE.max ||
        (req.cursor !== undefined && !TRANSACTIONS_CURSOR.test(req.cursor))
      ) {
        throw new ValidationProblem([{ field: 'query', message: 'start_date, limit or cursor is not valid' }]);
      }
      const page = await this.users.transactionPage(user.id, { start_date: req.start_date, cursor: req.cursor, limit });
      if (!page) return { data: [], next_cursor: null };
      const data: GatewayTransactionsPage['data'] = [];
      for await (const batch of page.batches) data.push(...batch);
      return { data, next_cursor: page.next };
    }, rpcProblemOf);
  }

  @MessagePattern(GATEWAY_ACCOUNT_RPC.webhooks)
  webhooks(@Payload() req: GatewayWebhooksRequest): Promise<RpcReply<unknown>> {
    return rpcAnswer(
      async () => {
        const user = await this.userOf(req?.request?.user_id);
        if (!(GATEWAY_WEBHOOK_CALLS as readonly string[]).includes(req.call)) {
          throw new ValidationProblem([{ field: 'call', message: `one of ${GATEWAY_WEBHOOK_CALLS.join(', ')}` }]);
        }
        return this.rpc.call(SUBSCRIPTIONS_RPC[req.call], { ...req.request, user_id: user.id } as never, {
          unavailable: 'Event subscriptions are unavailable right now; try again shortly.',
        });
      },
      (err) => (err instanceof RpcProblemError ? err.problem : rpcProblemOf(err)),
    );
  }
}
