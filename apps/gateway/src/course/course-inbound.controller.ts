import { Body, Controller, Headers, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
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

  /** 202 when the event is stored for processing, 200 when it was received before. */
  @Post(':connectionId')
  @RouteConfig(COURSE_BODY)
  @UseGuards(PublicRateLimitGuard)
  async receive(
    @Param('connectionId') connectionId: string,
    @Headers('x-course-secret') header: string | undefined,
    @Query('secret') query: unknown,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CourseCallbackAnswer> {
    const secret = header ?? (typeof query === 'string' ? query : undefined);
    const answer = await this.inbound.receive(connectionId, secret, body);
    void reply.status(answer.duplicate ? 200 : 202);
    return answer;
  }
}
