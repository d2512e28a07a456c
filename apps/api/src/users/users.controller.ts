import { Controller, Get, Headers, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthenticatedUser, CurrentUser, SystemTokenGuard } from '../auth';
import { ApiProblems, ApiSystemToken } from '../openapi/api-problems.decorator';
import { ApiUsageResponse, jsonArrayStream, nextPageLink, sendUsage, UsageQueryDto } from '@app/server';
import { RateLimitGuard } from '../rate-limit';
import { UsageService } from '../usage/usage.service';
import { BalanceDto, TransactionDto } from './dto/balance.dto';
import { ListTransactionsQuery, TRANSACTIONS_PAGE } from './dto/list-transactions.query';
import { OwnUserGuard } from './own-user.guard';
import { UsersService } from './users.service';

@ApiTags('Users')
@ApiSystemToken()
@UseGuards(SystemTokenGuard, RateLimitGuard, OwnUserGuard)
@Controller('v1/users/:userId')
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly usage: UsageService,
  ) {}

  @Get('balances')
  @ApiOperation({ summary: "The user's available balance" })
  @ApiOkResponse({ type: BalanceDto })
  @ApiProblems(403)
  balance(@CurrentUser() user: AuthenticatedUser, @Param('userId') userId: string): Promise<BalanceDto> {
    return this.users.balance(userId, user.currency);
  }

  @Get('transactions')
  @ApiOperation({
    summary: "The user's transactions since start_date (charges negative, top-ups positive)",
    description:
      'Oldest first. One answer holds at most `limit` transactions (default ' +
      `${TRANSACTIONS_PAGE.default}, at most ${TRANSACTIONS_PAGE.max}); when more follow, the ` +
      '`Link` header names the next page (`rel="next"`). The array is streamed as it is read.',
  })
  @ApiOkResponse({
    type: [TransactionDto],
    headers: {
      Link: { description: 'The next page: `<...>; rel="next"` (absent on the last page)', schema: { type: 'string' } },
    },
  })
  @ApiNoContentResponse({ description: 'No transactions in the period (or after the cursor)' })
  @ApiProblems(400, 403)
  async transactions(
    @Param('userId') userId: string,
    @Query() query: ListTransactionsQuery,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const page = await this.users.transactionPage(userId, query);
    if (!page) {
      await reply.status(204).send();
      return;
    }
    if (page.next) {
      const path = request.url.split('?')[0];
      const { start_date, limit = TRANSACTIONS_PAGE.default } = query;
      void reply.header('Link', nextPageLink(path, { start_date, limit, cursor: page.next }));
    }
    await reply.status(200).type('application/json; charset=utf-8').send(jsonArrayStream(page.batches));
  }

  @Get('usage')
  @ApiOperation({
    summary:
      "The user's usage per hour, channel and category: messages queued, sent, delivered, read, failed and their cost",
    description:
      "Every message of the user (its API sends and its gateway accounts' sends) counts in the hour (UTC) it was accepted in.",
  })
  @ApiUsageResponse()
  @ApiProblems(400, 403)
  async usageReport(
    @Param('userId') userId: string,
    @Query() query: UsageQueryDto,
    @Headers('accept') accept: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await sendUsage(reply, accept, await this.usage.report(userId, query));
  }
}
