import { Controller, Get, Param, Query, Res, UseGuards } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthenticatedUser, CurrentUser, SystemTokenGuard } from '../auth';
import { ApiProblems, ApiSystemToken } from '../openapi/api-problems.decorator';
import { RateLimitGuard } from '../rate-limit';
import { BalanceDto, TransactionDto } from './dto/balance.dto';
import { ListTransactionsQuery } from './dto/list-transactions.query';
import { OwnUserGuard } from './own-user.guard';
import { UsersService } from './users.service';

@ApiTags('Users')
@ApiSystemToken()
@UseGuards(SystemTokenGuard, RateLimitGuard, OwnUserGuard)
@Controller('v1/users/:userId')
export class UsersController {
  constructor(private readonly users: UsersService) {}

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
}
