import { Body, Controller, Get, Param, Put, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { isUuid } from '@app/contracts';
import { Clock, ForbiddenProblem, NotFoundProblem } from '@app/server';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../accounts/authenticated-account';
import { ConnectionsRepository } from '../connections/connections.repository';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';
import { CourseRepliesRepository, CourseTriggersRow } from './course-replies.repository';
import { CourseTriggersBodyDto, CourseTriggersDto } from './dto/course-triggers.dto';

const view = (connectionId: string, t: CourseTriggersRow | null): CourseTriggersDto => ({
  connection_id: connectionId,
  keyword_triggers: t?.keyword_triggers ?? [],
  on_message: t?.on_message ?? null,
  updated_at: t ? Math.floor(new Date(t.updated_at).getTime() / 1000) : null,
});

/**
 * `GET|PUT /v1/course/connections/{id}/triggers`: the inbound messages that start an event on a
 * course platform (docs/course.md, Starting an event from a message).
 */
@ApiTags('course')
@ApiAccountToken()
@Controller('v1/course/connections')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class CourseTriggersController {
  constructor(
    private readonly replies: CourseRepliesRepository,
    private readonly connections: ConnectionsRepository,
    private readonly clock: Clock,
  ) {}

  @Get(':id/triggers')
  @ApiOperation({ summary: "A course connection's keyword triggers and on_message event" })
  @ApiOkResponse({ type: CourseTriggersDto })
  @ApiProblems(403, 404)
  async get(@CurrentAccount() account: AuthenticatedAccount, @Param('id') id: string): Promise<CourseTriggersDto> {
    const connectionId = await this.courseConnection(account, id);
    return view(connectionId, await this.replies.triggers(connectionId));
  }

  @Put(':id/triggers')
  @ApiOperation({ summary: "Set a course connection's triggers (replacing them): messages that start a course event" })
  @ApiOkResponse({ type: CourseTriggersDto })
  @ApiProblems(400, 403, 404)
  async set(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('id') id: string,
    @Body() dto: CourseTriggersBodyDto,
  ): Promise<CourseTriggersDto> {
    const connectionId = await this.courseConnection(account, id);
    const saved = await this.replies.setTriggers(
      {
        connection_id: connectionId,
        account_id: account.id,
        keyword_triggers: (dto.keyword_triggers ?? []).map((k) => ({ keyword: k.keyword, event: k.event })),
        on_message: dto.on_message ?? null,
      },
      this.clock.now(),
    );
    return view(connectionId, saved);
  }

  /** The id of the account's live course connection `id`: 404 for none, 403 for another account's. */
  private async courseConnection(account: AuthenticatedAccount, id: string): Promise<string> {
    const connection = isUuid(id) ? await this.connections.findById(id.toLowerCase()) : null;
    if (!connection || connection.channel !== 'course' || connection.state === 'disconnected') {
      throw new NotFoundProblem('course connection');
    }
    if (connection.accountId !== account.id) throw new ForbiddenProblem('The connection belongs to another account.');
    return connection.id;
  }
}
