import { Controller, Get, Headers, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BodyLimitConfig, jsonBodyOf, RAW_BODY, rawBodyOf } from '@app/server';
import { WhatsAppInboundService } from './whatsapp-inbound.service';

/**
 * Meta's webhook payloads reach 3 MB (it aggregates up to 1,000 updates in one when a receiver
 * falls behind); a smaller limit would refuse them every time they are retried, and lose them.
 * The body arrives as bytes (RAW_BODY) and is parsed only once its signature matches, so an
 * unsigned body costs its bytes, never the heap of its parse.
 */
export const WHATSAPP_WEBHOOK_BODY_LIMIT_BYTES = 3 * 1024 * 1024;

/** Meta's webhook endpoint for the WhatsApp Business Account (a channel's callback: not in the OpenAPI document). */
@ApiExcludeController()
@Controller('v1/inbound/whatsapp')
export class WhatsAppInboundController {
  constructor(private readonly inbound: WhatsAppInboundService) {}

  @Get()
  verify(@Query() query: Record<string, unknown>, @Res({ passthrough: true }) reply: FastifyReply): string {
    const challenge = this.inbound.verifyChallenge(query);
    void reply.type('text/plain; charset=utf-8');
    return challenge;
  }

  @Post()
  @HttpCode(200)
  @RouteConfig({ ...RAW_BODY, bodyLimit: WHATSAPP_WEBHOOK_BODY_LIMIT_BYTES } satisfies BodyLimitConfig)
  receive(
    @Req() req: FastifyRequest,
    @Headers('x-hub-signature-256') signature: string | undefined,
  ): Promise<{ events: number }> {
    return this.inbound.receive(rawBodyOf(req), signature, () => jsonBodyOf(req));
  }
}
