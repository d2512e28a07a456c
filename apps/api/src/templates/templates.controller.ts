import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { jsonArrayStream } from '@app/server';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser, SystemTokenGuard } from '../auth';
import { RateLimitGuard } from '../rate-limit';
import { WaAppsService } from '../wa-apps/wa-apps.service';
import { ApiProblems, ApiSystemToken } from '../openapi/api-problems.decorator';
import { CreateTemplateDto } from './dto/create-template.dto';
import { TemplateDto } from './dto/template.dto';
import { UpdateTemplateDto } from './dto/update-template.dto';
import { TemplatesService } from './templates.service';

@ApiTags('Templates')
@ApiSystemToken()
@UseGuards(SystemTokenGuard, RateLimitGuard)
@Controller('v1/wa/apps/:appId/templates')
export class TemplatesController {
  constructor(
    private readonly apps: WaAppsService,
    private readonly templates: TemplatesService,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a template and send it for moderation (status PENDING)' })
  @ApiCreatedResponse({ type: TemplateDto })
  @ApiProblems(400, 403, 404, 503)
  async create(
    @CurrentUser() user: AuthenticatedUser,
    @Param('appId') appId: string,
    @Body() dto: CreateTemplateDto,
  ): Promise<TemplateDto> {
    return this.templates.create(await this.apps.getOwnedApp(appId, user.id), dto);
  }

  @Get()
  @ApiOperation({ summary: 'List the templates of an application' })
  @ApiOkResponse({ type: [TemplateDto] })
  @ApiProblems(403, 404)
  async list(
    @CurrentUser() user: AuthenticatedUser,
    @Param('appId') appId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const app = await this.apps.getOwnedApp(appId, user.id);
    await reply
      .status(200)
      .type('application/json; charset=utf-8')
      .send(jsonArrayStream(this.templates.list(app)));
  }

  @Patch(':tplId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Edit a template and send it for moderation again',
    description:
      'Only APPROVED, REJECTED or PAUSED templates can be edited (422 otherwise). Omitted category, header, footer and buttons keep their values; an empty string removes header or footer; [] or null removes the buttons.',
  })
  @ApiNoContentResponse({ description: 'Submitted for moderation' })
  @ApiProblems(400, 403, 404, 422, 503)
  async update(
    @CurrentUser() user: AuthenticatedUser,
    @Param('appId') appId: string,
    @Param('tplId') tplId: string,
    @Body() dto: UpdateTemplateDto,
  ): Promise<void> {
    await this.templates.update(await this.apps.getOwnedApp(appId, user.id), tplId, dto);
  }

  @Delete(':tplId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a template (on the channel, then here)' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblems(403, 404, 503)
  async delete(
    @CurrentUser() user: AuthenticatedUser,
    @Param('appId') appId: string,
    @Param('tplId') tplId: string,
  ): Promise<void> {
    await this.templates.delete(await this.apps.getOwnedApp(appId, user.id), tplId);
  }
}
