import { Controller, Get, Headers, Param, Query, Res, UseGuards } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthenticatedUser, CurrentUser, SystemTokenGuard } from '../auth';
import { ApiProblems, ApiSystemToken } from '../openapi/api-problems.decorator';
import { ApiUsageResponse, sendUsage, UsageQueryDto } from '@app/server';
import { RateLimitGuard } from '../rate-limit';
import { UsageService } from '../usage/usage.service';
import { BalanceDto, TransactionDto } from './dto/balance.dto';
import { ListTransactionsQuery } from './dto/list-transactions.query';
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
  @ApiOperation({ summary: "The user's transactions since start_date (charges negative, top-ups positive)" })
  @ApiOkResponse({ type: [TransactionDto] })
  @ApiNoContentResponse({ description: 'No transactions in the period' })
  @ApiProblems(400, 403)
  async transactions(
    @Param('userId') userId: string,
    @Query() query: ListTransactionsQuery,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const list = await this.users.transactions(userId, query.start_date);
    if (list.length === 0) {
      await reply.status(204).send();
      return;
    }
    await reply.status(200).send(list);
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
