import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import { NotFoundProblem } from '@app/server';
import { ApiConfig } from '../config';
import { ApiProblems, LINK_TOKEN_SCHEME } from '../openapi/api-problems.decorator';
import { ConnectedDto, ConnectSandboxNumberDto, ConnectSignupDto } from './dto/connect-number.dto';
import { renderInvalidLinkPage, renderOnboardingPage } from './onboarding.page';
import { LinkGoneProblem, OnboardingService } from './onboarding.service';

/**
 * Scripts and styles by nonce only; never framed (a framed page could be clickjacked into
 * connecting a number). Cloud mode also admits Meta's SDK and its signup popup.
 */
export function onboardingCsp(mode: 'sandbox' | 'cloud', nonce: string): string {
  const facebook = 'https://connect.facebook.net https://*.facebook.com';
  const common = `default-src 'self'; style-src 'nonce-${nonce}'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`;
  return mode === 'cloud'
    ? `${common}; script-src 'nonce-${nonce}' ${facebook}; frame-src https://*.facebook.com; connect-src 'self' https://*.facebook.com; img-src 'self' data: https://*.facebook.com`
    : `${common}; script-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:`;
}

/**
 * The page behind embed_link_url and the two ways it completes. No bearer token: the signed
 * link (query `t`) is the credential.
 */
@ApiTags('Onboarding')
@Controller('v1/onboarding/:uuid')
export class OnboardingController {
  constructor(
    private readonly onboarding: OnboardingService,
    private readonly config: ApiConfig,
  ) {}

  @Get()
  @ApiExcludeEndpoint()
  async page(@Param('uuid') uuid: string, @Query('t') token: unknown, @Res() reply: FastifyReply): Promise<void> {
    void reply
      .header('Cache-Control', 'no-store')
      .header('Referrer-Policy', 'no-referrer')
      .header('X-Content-Type-Options', 'nosniff')
      .header('X-Frame-Options', 'DENY');
    let app;
    try {
      app = await this.onboarding.appOfLink(uuid, token);
    } catch (err) {
      if (!(err instanceof NotFoundProblem) && !(err instanceof LinkGoneProblem)) throw err;
      void reply
        .status(err.status)
        .type('text/html; charset=utf-8')
        .send(renderInvalidLinkPage(err instanceof LinkGoneProblem ? err.reason : 'invalid'));
      return;
    }
    const nonce = randomBytes(16).toString('base64');
    const q = `?t=${encodeURIComponent(String(token))}`;
    const base = `/api/v1/onboarding/${app.uuid}`;
    void reply
      .header('Content-Security-Policy', onboardingCsp(this.onboarding.mode, nonce))
      .type('text/html; charset=utf-8')
      .send(
        renderOnboardingPage({
          mode: this.onboarding.mode,
          appName: app.name,
          sandboxAction: `${base}/sandbox${q}`,
          signupAction: `${base}/signup${q}`,
          nonce,
          facebookAppId: this.config.WHATSAPP_APP_ID,
          signupConfigId: this.config.WHATSAPP_SIGNUP_CONFIG_ID,
        }),
      );
  }

  @Post('sandbox')
  @HttpCode(200)
  @ApiOperation({ summary: 'Sandbox mode: connect a sandbox WhatsApp number; the app becomes ACTIVE' })
  @ApiSecurity(LINK_TOKEN_SCHEME)
  @ApiOkResponse({ type: ConnectedDto })
  @ApiProblems(400, 404, 409, 410)
  async sandbox(
    @Param('uuid') uuid: string,
    @Query('t') token: unknown,
    @Body() dto: ConnectSandboxNumberDto,
  ): Promise<ConnectedDto> {
    const app = await this.onboarding.appOfLink(uuid, token);
    return this.onboarding.connectSandbox(app, dto.phone);
  }

  @Post('signup')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Completes the channel’s embedded signup: the code is exchanged and must grant this business account and number; the app becomes ACTIVE',
  })
  @ApiSecurity(LINK_TOKEN_SCHEME)
  @ApiOkResponse({ type: ConnectedDto })
  @ApiProblems(400, 403, 404, 409, 410, 422, 503)
  async signup(
    @Param('uuid') uuid: string,
    @Query('t') token: unknown,
    @Body() dto: ConnectSignupDto,
  ): Promise<ConnectedDto> {
    const app = await this.onboarding.appOfLink(uuid, token);
    return this.onboarding.connectSignup(app, {
      code: dto.code,
      waba_id: dto.waba_id,
      phone_number_id: dto.phone_number_id,
    });
  }
}
