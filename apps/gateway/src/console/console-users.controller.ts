import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import {
  ApiCookieAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { isUuid, unixSeconds } from '@app/contracts';
import { NotFoundProblem } from '@app/server';
import { ApiProblems } from '../openapi/gateway-problems.decorator';
import { CursorPageQueryDto } from '../paging/cursor-page.dto';
import { ConsoleAuditRepository } from './console-audit.repository';
import { CONSOLE_COOKIE_SCHEME } from './console-session.controller';
import { ConsoleRoleNeeded, ConsoleSessionGuard, CurrentSession } from './console-session.guard';
import { ConsoleSession } from './console-sessions.repository';
import { ConsoleUsersRepository } from './console-users.repository';
import { AuditPageDto, ConsoleUserDto, InvitationDto, InviteUserDto, UpdateUserDto } from './console.dto';
import { ConsoleService } from './console.service';

const userId = (id: string): string => {
  if (!isUuid(id)) throw new NotFoundProblem('console user');
  return id;
};

/** The account's console users (owners only) and its audit log (owners and managers). */
@ApiTags('console')
@ApiCookieAuth(CONSOLE_COOKIE_SCHEME)
@ApiProblems(401, 403)
@Controller('console/api')
@UseGuards(ConsoleSessionGuard)
export class ConsoleUsersController {
  constructor(
    private readonly console: ConsoleService,
    private readonly users: ConsoleUsersRepository,
    private readonly audit: ConsoleAuditRepository,
  ) {}

  @Get('users')
  @ConsoleRoleNeeded('owner')
  @ApiOperation({ summary: "The account's console users (at most 200), oldest first" })
  @ApiOkResponse({ type: [ConsoleUserDto] })
  async list(@CurrentSession() session: ConsoleSession): Promise<ConsoleUserDto[]> {
    return (await this.users.list(session.account.id)).map((u) => this.console.userView(u));
  }

  @Post('users/invitations')
  @HttpCode(201)
  @ConsoleRoleNeeded('owner')
  @ApiOperation({ summary: 'Invite a user: a link that works once, for 7 days' })
  @ApiCreatedResponse({ type: InvitationDto })
  @ApiProblems(409)
  invite(@CurrentSession() session: ConsoleSession, @Body() dto: InviteUserDto): Promise<InvitationDto> {
    return this.console.invite(session.account.id, dto.email, dto.role, session.user);
  }

  @Patch('users/:id')
  @ConsoleRoleNeeded('owner')
  @ApiOperation({ summary: "Change a user's role (the account keeps at least one owner)" })
  @ApiOkResponse({ type: ConsoleUserDto })
  @ApiProblems(404, 409)
  setRole(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() dto: UpdateUserDto,
  ): Promise<ConsoleUserDto> {
    return this.console.setRole(session, userId(id), dto.role);
  }

  @Delete('users/:id')
  @HttpCode(204)
  @ConsoleRoleNeeded('owner')
  @ApiOperation({ summary: 'Remove a user: its sessions end (the account keeps at least one owner)' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiProblems(404, 409)
  async remove(@CurrentSession() session: ConsoleSession, @Param('id') id: string): Promise<void> {
    await this.console.remove(session, userId(id));
  }

  @Get('audit')
  @ConsoleRoleNeeded('manager')
  @ApiOperation({ summary: 'The audit log: every change made through the console, newest first' })
  @ApiOkResponse({ type: AuditPageDto })
  @ApiProblems(400)
  async auditLog(@CurrentSession() session: ConsoleSession, @Query() query: CursorPageQueryDto): Promise<AuditPageDto> {
    const limit = query.limit ? Number(query.limit) : 50;
    const rows = await this.audit.page(session.account.id, query.cursor, limit + 1);
    const page = rows.slice(0, limit);
    return {
      data: page.map((r) => ({
        at: unixSeconds(r.at),
        user_email: r.userEmail,
        action: r.action,
        target: r.target,
        details: r.details,
      })),
      next_cursor: rows.length > limit ? page[page.length - 1].id : null,
    };
  }
}
