import { Body, Controller, Headers, Param, Post, Res, UseGuards } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PublicRateLimitGuard } from '../public-rate-limit/public-rate-limit.guard';
import { COURSE_BODY } from './course-body.parser';
import { CourseCallbackAnswer, CourseInboundService } from './course-inbound.service';

/** Where a connected course platform posts its events, one URL per connection (docs/course.md). */
@ApiExcludeController()
@Controller('v1/course/events')
export class CourseInboundController {
  constructor(private readonly inbound: CourseInboundService) {}

  /**
   * 202 when the event is stored for processing, 200 when it was received before. The secret comes
   * in the X-Course-Secret header only: a secret in the query string ends up in access logs,
   * proxies and the platform's own records.
   */
  @Post(':connectionId')
  @RouteConfig(COURSE_BODY)
  @UseGuards(PublicRateLimitGuard)
  async receive(
    @Param('connectionId') connectionId: string,
    @Headers('x-course-secret') secret: string | undefined,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CourseCallbackAnswer> {
    const answer = await this.inbound.receive(connectionId, secret, body);
    void reply.status(answer.duplicate ? 200 : 202);
    return answer;
  }
}
