import { Body, Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser, SystemTokenGuard } from '../auth';
import { RateLimitGuard } from '../rate-limit';
import { ApiProblems, ApiSystemToken } from '../openapi/api-problems.decorator';
import { WaAppsService, toAppDto } from './wa-apps.service';
import { AppDto, CreatedAppDto, EmbedLinkDto } from './dto/app.dto';
import { CreateAppDto } from './dto/create-app.dto';

@ApiTags('Apps')
@ApiSystemToken()
@UseGuards(SystemTokenGuard, RateLimitGuard)
@Controller('v1/wa/apps')
export class WaAppsController {
  constructor(private readonly apps: WaAppsService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an application; the business connects its number through embed_link_url' })
  @ApiCreatedResponse({ type: CreatedAppDto })
  @ApiProblems(400, 403, 413, 415)
  create(@CurrentUser() user: AuthenticatedUser, @Body() dto: CreateAppDto): Promise<CreatedAppDto> {
    return this.apps.create(user.id, dto.name);
  }

  @Get(':appId')
  @ApiOperation({ summary: 'Get an application' })
  @ApiOkResponse({ type: AppDto })
  @ApiProblems(403, 404)
  async get(@CurrentUser() user: AuthenticatedUser, @Param('appId') appId: string): Promise<AppDto> {
    return toAppDto(await this.apps.getOwnedApp(appId, user.id));
  }

  @Post(':appId/embed-link')
  @HttpCode(201)
  @ApiOperation({
    summary: 'A fresh onboarding link (embed_link_url) for an application whose number is not yet connected',
  })
  @ApiCreatedResponse({ type: EmbedLinkDto })
  @ApiProblems(403, 404, 409)
  embedLink(@CurrentUser() user: AuthenticatedUser, @Param('appId') appId: string): Promise<EmbedLinkDto> {
    return this.apps.freshEmbedLink(appId, user.id);
  }
}
