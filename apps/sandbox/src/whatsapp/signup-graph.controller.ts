import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, UseFilters, UseGuards } from '@nestjs/common';
import { GraphDebugToken, GraphTokenExchange } from '@app/channels';
import { GraphAuthGuard } from './graph-auth.guard';
import { GraphErrorFilter } from './graph-error';
import { SignupService } from './signup.service';

/** The Graph routes of the embedded signup: code exchange, token debugging, webhook subscription, registration. */
@Controller()
@UseFilters(GraphErrorFilter)
export class SignupGraphController {
  constructor(private readonly signups: SignupService) {}

  /** Authenticated by the app's own credentials in the query, as on Graph. */
  @Get(':version/oauth/access_token')
  exchange(@Query() q: Record<string, unknown>): GraphTokenExchange {
    return this.signups.exchange(q.client_id, q.client_secret, q.code);
  }

  @Get(':version/debug_token')
  debug(
    @Headers('authorization') authorization: string | undefined,
    @Query() q: Record<string, unknown>,
  ): GraphDebugToken {
    const bearer = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    const appToken = bearer ?? (typeof q.access_token === 'string' ? q.access_token : null);
    return this.signups.debug(appToken, q.input_token);
  }

  @Post(':version/:wabaId/subscribed_apps')
  @HttpCode(200)
  @UseGuards(GraphAuthGuard)
  subscribe(@Param('wabaId') wabaId: string): { success: true } {
    return this.signups.subscribe(wabaId);
  }

  @Post(':version/:phoneNumberId/register')
  @HttpCode(200)
  @UseGuards(GraphAuthGuard)
  register(@Param('phoneNumberId') phoneNumberId: string, @Body() body: unknown): { success: true } {
    return this.signups.register(phoneNumberId, body);
  }
}
