import { Body, Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser, SystemTokenGuard } from '../auth';
import { RateLimitGuard } from '../rate-limit';
import { ApiProblems, ApiSystemToken } from '../openapi/api-problems.decorator';
import { AppsService, toAppDto } from './apps.service';
import { AppDto, CreatedAppDto } from './dto/app.dto';
import { CreateAppDto } from './dto/create-app.dto';

@ApiTags('Apps')
@ApiSystemToken()
@UseGuards(SystemTokenGuard, RateLimitGuard)
@Controller('v1/wa/apps')
export class AppsController {
  constructor(private readonly apps: AppsService) {}

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
}
