import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import { NotFoundProblem } from '@app/server';
import { ApiConfig } from '../config';
import { ApiProblems } from '../openapi/api-problems.decorator';
import { ConnectedDto, ConnectSandboxNumberDto, ConnectSignupDto } from './dto/connect-number.dto';
import { renderInvalidLinkPage, renderOnboardingPage } from './onboarding.page';
import { OnboardingService } from './onboarding.service';

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
      .header('X-Content-Type-Options', 'nosniff');
    let app;
    try {
      app = await this.onboarding.appOfLink(uuid, token);
    } catch (err) {
      if (!(err instanceof NotFoundProblem)) throw err;
      void reply.status(404).type('text/html; charset=utf-8').send(renderInvalidLinkPage());
      return;
    }
    const nonce = randomBytes(16).toString('base64');
    const q = `?t=${encodeURIComponent(String(token))}`;
    const base = `/api/v1/onboarding/${app.uuid}`;
    const facebook = 'https://connect.facebook.net https://*.facebook.com';
    const csp =
      this.onboarding.mode === 'cloud'
        ? `default-src 'self'; script-src 'nonce-${nonce}' ${facebook}; style-src 'nonce-${nonce}'; frame-src https://*.facebook.com; connect-src 'self' https://*.facebook.com; img-src 'self' data: https://*.facebook.com`
        : `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:`;
    void reply
      .header('Content-Security-Policy', csp)
      .type('text/html; charset=utf-8')
      .send(
        renderOnboardingPage({
          mode: this.onboarding.mode,
          appName: app.name,
          connectedPhone: app.wabaId ? app.phone : null,
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
  @ApiQuery({ name: 't', description: 'The link token of embed_link_url' })
  @ApiOkResponse({ type: ConnectedDto })
  @ApiProblems(400, 404, 409)
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
  @ApiOperation({ summary: 'Records the result of the channel’s embedded signup; the app becomes ACTIVE' })
  @ApiQuery({ name: 't', description: 'The link token of embed_link_url' })
  @ApiOkResponse({ type: ConnectedDto })
  @ApiProblems(400, 404, 409)
  async signup(
    @Param('uuid') uuid: string,
    @Query('t') token: unknown,
    @Body() dto: ConnectSignupDto,
  ): Promise<ConnectedDto> {
    const app = await this.onboarding.appOfLink(uuid, token);
    return this.onboarding.connectSignup(app, {
      wabaId: dto.waba_id,
      phoneNumberId: dto.phone_number_id,
      phone: dto.phone,
    });
  }
}
