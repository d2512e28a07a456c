import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiCookieAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiProblems } from '../openapi/gateway-problems.decorator';
import { ConsoleAuth, ConsoleRequest } from './console-auth';
import { CurrentSession, ConsoleSessionGuard } from './console-session.guard';
import { ConsoleSession } from './console-sessions.repository';
import { AcceptInvitationDto, ConsoleSessionDto, SignInDto, UpdateMeDto } from './console.dto';
import { ConsoleService } from './console.service';

export const CONSOLE_COOKIE_SCHEME = 'console';

/** Signing in and out of the console (docs/console.md): `/console/api/session`, invitations, the user's own settings. */
@ApiTags('console')
@Controller('console/api')
export class ConsoleSessionController {
  constructor(
    private readonly console: ConsoleService,
    private readonly auth: ConsoleAuth,
  ) {}

  @Post('session')
  @HttpCode(200)
  @ApiOperation({ summary: 'Sign in: sets the console_session cookie; 5 failures for an email lock it for 15 minutes' })
  @ApiOkResponse({ type: ConsoleSessionDto })
  @ApiProblems(401, 429)
  async signIn(
    @Body() dto: SignInDto,
    @Req() request: ConsoleRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConsoleSessionDto> {
    const { id, session } = await this.console.signIn(dto.email, dto.password, request.ip);
    this.auth.setCookie(reply, id);
    request.consoleAudited = true;
    return session;
  }

  @Post('invitations/accept')
  @HttpCode(200)
  @ApiOperation({ summary: 'Take an invitation: creates the console user with this password and signs it in' })
  @ApiOkResponse({ type: ConsoleSessionDto })
  @ApiProblems(404, 409)
  async accept(
    @Body() dto: AcceptInvitationDto,
    @Req() request: ConsoleRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConsoleSessionDto> {
    const { id, session } = await this.console.acceptInvitation(dto.token, dto.password);
    this.auth.setCookie(reply, id);
    request.consoleAudited = true;
    return session;
  }

  @Get('session')
  @UseGuards(ConsoleSessionGuard)
  @ApiCookieAuth(CONSOLE_COOKIE_SCHEME)
  @ApiOperation({ summary: 'The signed-in user and the CSRF token; 401 without a live session' })
  @ApiOkResponse({ type: ConsoleSessionDto })
  @ApiProblems(401)
  current(@CurrentSession() session: ConsoleSession): ConsoleSessionDto {
    return this.console.view(session);
  }

  @Delete('session')
  @HttpCode(204)
  @UseGuards(ConsoleSessionGuard)
  @ApiCookieAuth(CONSOLE_COOKIE_SCHEME)
  @ApiOperation({ summary: 'Sign out: this session ends' })
  @ApiNoContentResponse({ description: 'Signed out' })
  @ApiProblems(401, 403)
  async signOut(
    @CurrentSession() session: ConsoleSession,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    await this.console.signOut(session);
    this.auth.clearCookie(reply);
  }

  @Post('session/sign-out-everywhere')
  @HttpCode(204)
  @UseGuards(ConsoleSessionGuard)
  @ApiCookieAuth(CONSOLE_COOKIE_SCHEME)
  @ApiOperation({ summary: "Sign out everywhere: every session of this user ends, this one's too" })
  @ApiNoContentResponse({ description: 'Signed out everywhere' })
  @ApiProblems(401, 403)
  async signOutEverywhere(
    @CurrentSession() session: ConsoleSession,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    await this.console.signOutEverywhere(session);
    this.auth.clearCookie(reply);
  }

  @Patch('me')
  @UseGuards(ConsoleSessionGuard)
  @ApiCookieAuth(CONSOLE_COOKIE_SCHEME)
  @ApiOperation({ summary: "The signed-in user's language" })
  @ApiOkResponse({ type: ConsoleSessionDto })
  @ApiProblems(401, 403)
  async updateMe(@CurrentSession() session: ConsoleSession, @Body() dto: UpdateMeDto): Promise<ConsoleSessionDto> {
    return this.console.setLocale(session, dto.locale);
  }
}
