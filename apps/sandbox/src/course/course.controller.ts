import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundProblem, RAW_BODY, rawBodyOf } from '@app/server';
import { courseFormBody } from './form-body';
import { CourseFault, CoursePlatforms, EmulatedCoursePlatform, ReceivedCourseEvent } from './course-platforms';
import { CreateCoursePlatformDto, FireCourseEventDto, SetCourseFaultDto } from './course.dto';

/** The course platform emulator, `/_sandbox/course/platforms/...` (docs/sandbox.md). */
@Controller('_sandbox/course/platforms')
export class CourseSandboxController {
  constructor(private readonly platforms: CoursePlatforms) {}

  private platform(id: string): EmulatedCoursePlatform {
    const p = this.platforms.get(id);
    if (!p) throw new NotFoundProblem('course platform');
    return p;
  }

  /** A platform whose base_url points back here: status events posted under it are recorded. */
  @Post()
  @HttpCode(201)
  create(@Body() dto: CreateCoursePlatformDto, @Req() req: FastifyRequest): { id: string; base_url: string } {
    const p = this.platforms.create(dto.api_key);
    return { id: p.id, base_url: `${req.protocol}://${req.host}/_sandbox/course/platforms/${p.id}/receiver` };
  }

  /** Status events received, in arrival order; `include=all` adds those the fault switch answered. */
  @Get(':id/events')
  events(@Param('id') id: string, @Query('include') include?: string): ReceivedCourseEvent[] {
    return this.platform(id).events.filter((e) => include === 'all' || e.outcome === 'accepted');
  }

  /** The receiver: base_url and any path under it. */
  @Post(':id/receiver/*')
  @RouteConfig(RAW_BODY)
  async receive(
    @Param('id') id: string,
    @Headers('x-signature') signature: string | undefined,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const p = this.platform(id);
    const path = req.url.split('?')[0].replace(`/_sandbox/course/platforms/${id}/receiver`, '') || '/';
    const { status } = await this.platforms.receive(p, path, rawBodyOf(req) ?? Buffer.alloc(0), signature);
    if (status === null) {
      await reply.status(500).send({ error: 'no answer' });
      return;
    }
    await reply.status(status).send(status === 200 ? { ok: true } : { error: 'fault' });
  }

  /** Sends a process callback to the gateway as the platform would, and returns the gateway's answer. */
  @Post(':id/fire')
  async fire(@Param('id') id: string, @Body() dto: FireCourseEventDto): Promise<{ status: number; body: unknown }> {
    this.platform(id);
    const url = new URL(dto.url);
    const headers: Record<string, string> = {};
    if ((dto.secret_in ?? 'header') === 'header') headers['X-Course-Secret'] = dto.secret;
    else url.searchParams.set('secret', dto.secret);
    let body: string;
    if (dto.format === 'form') {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = courseFormBody(dto.event);
    } else {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(dto.event);
    }
    const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: returned as text
    }
    return { status: res.status, body: parsed };
  }

  @Post(':id/faults')
  setFault(@Param('id') id: string, @Body() dto: SetCourseFaultDto): CourseFault {
    return this.platforms.setFault(this.platform(id), {
      mode: dto.mode,
      count: dto.count ?? null,
      delay_ms: dto.delay_ms ?? 2000,
    });
  }

  @Get(':id/faults')
  fault(@Param('id') id: string): { fault: CourseFault | null } {
    return { fault: this.platform(id).fault };
  }

  @Delete(':id/faults')
  @HttpCode(204)
  clearFault(@Param('id') id: string): void {
    this.platform(id).fault = null;
  }
}
