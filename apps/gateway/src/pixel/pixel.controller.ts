import { Controller, Get, Param, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PublicRateLimitGuard } from '../public-rate-limit/public-rate-limit.guard';
import { PixelOpensService } from './pixel-opens.service';
import { ApiProblems } from '../openapi/gateway-problems.decorator';

/** A transparent 1x1 GIF, the smallest well-formed one (43 bytes). */
export const PIXEL_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

/** Every answer is fetched again: a cached pixel would hide the opens after the first. */
export const PIXEL_HEADERS = {
  'Content-Type': 'image/gif',
  'Content-Length': String(PIXEL_GIF.length),
  'Cache-Control': 'no-store, no-cache, must-revalidate, private, max-age=0',
  Pragma: 'no-cache',
  Expires: 'Thu, 01 Jan 1970 00:00:00 GMT',
} as const;

const PIXEL_PATH = /^\/v1\/course\/pixel\/./;

/**
 * A request path as the access log writes it: a pixel's token is a credential (it marks its
 * message READ), so its path is logged without it.
 */
export function hidePixelToken(path: string): string {
  return PIXEL_PATH.test(path) ? '/v1/course/pixel/{token}.gif' : path;
}

/**
 * The tracking pixel embedded in a message: public (the token is the credential), answered with the
 * same GIF whatever the token, at once: recording the open never makes the reader wait.
 */
@ApiTags('tracking pixel')
@Controller('v1/course/pixel')
export class PixelController {
  constructor(private readonly opens: PixelOpensService) {}

  @Get(':token.gif')
  @UseGuards(PublicRateLimitGuard)
  @ApiOperation({ summary: "A message's tracking pixel: a 1x1 transparent GIF; the first open marks the message READ" })
  @ApiProduces('image/gif')
  // 404: a path no token could be (one with a line break, say) matches no route.
  @ApiProblems(404, 414)
  @ApiOkResponse({
    description: 'The 43-byte GIF, for any token (a token the gateway did not make records nothing)',
    content: { 'image/gif': { schema: { type: 'string', format: 'binary' } } },
  })
  open(@Param('token') token: string, @Res() reply: FastifyReply): void {
    this.opens.opened(token);
    void reply.headers(PIXEL_HEADERS).send(PIXEL_GIF);
  }
}
