import { Controller, Get, Param, Req, Res, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '@app/server';
import { ApiProblems } from '../openapi/gateway-problems.decorator';
import { PublicRateLimitGuard } from '../public-rate-limit/public-rate-limit.guard';
import { LinksService } from './links.service';

/** An unknown token says nothing more: no detail, nothing about what it might have been. */
const unknownLink = () => new ProblemError(404, 'not-found', 'Not found');

/**
 * A campaign's short link (docs/campaigns.md#tracked-links): public (the token is its own
 * credential), redirecting at once; a person's first click is recorded after the answer.
 */
@ApiTags('tracked links')
@Controller('l')
export class LinksController {
  constructor(private readonly links: LinksService) {}

  @Get(':token')
  @UseGuards(PublicRateLimitGuard)
  @ApiOperation({
    summary: "A tracked link: 302 to its URL; a person's first click is recorded (previews and HEAD are not)",
  })
  @ApiResponse({ status: 302, description: 'Location: the original URL' })
  @ApiProblems(404)
  async follow(@Param('token') token: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const url = await this.links.follow(token, req.method, req.headers['user-agent']);
    if (!url) throw unknownLink();
    void reply.header('Cache-Control', 'no-store').header('Referrer-Policy', 'no-referrer').redirect(url, 302);
  }
}
