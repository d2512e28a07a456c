import { Body, Controller, Get, Header, HttpCode, Param, Patch, UseGuards } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser, SystemTokenGuard } from '../auth';
import { RateLimitGuard } from '../rate-limit';
import { WaAppsService } from '../wa-apps/wa-apps.service';
import { ApiProblems, ApiSystemToken } from '../openapi/api-problems.decorator';
import { ProfileDto, ProfilePhotoDto } from './dto/profile.dto';
import { UpdateProfileDto } from './dto/update-profile.dto';
import { ProfilesService } from './profiles.service';

@ApiTags('Apps')
@ApiSystemToken()
@UseGuards(SystemTokenGuard, RateLimitGuard)
@Controller('v1/wa/apps/:appId/profile')
export class ProfilesController {
  constructor(
    private readonly apps: WaAppsService,
    private readonly profiles: ProfilesService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Get the business profile of an application' })
  @ApiOkResponse({ type: ProfileDto })
  @ApiProblems(403, 404)
  async get(@CurrentUser() user: AuthenticatedUser, @Param('appId') appId: string): Promise<ProfileDto> {
    return this.profiles.get(await this.apps.getOwnedApp(appId, user.id));
  }

  @Patch()
  @HttpCode(204)
  @ApiOperation({ summary: 'Update the business profile; null clears a field, an absent field is kept' })
  @ApiNoContentResponse({ description: 'Updated' })
  @ApiProblems(400, 403, 404)
  async update(
    @CurrentUser() user: AuthenticatedUser,
    @Param('appId') appId: string,
    @Body() dto: UpdateProfileDto,
  ): Promise<void> {
    await this.profiles.update(await this.apps.getOwnedApp(appId, user.id), dto);
  }

  @Get('photo')
  @ApiOperation({ summary: 'Get the profile photo URL' })
  @ApiOkResponse({ type: ProfilePhotoDto })
  @ApiProblems(403, 404)
  async photo(@CurrentUser() user: AuthenticatedUser, @Param('appId') appId: string): Promise<ProfilePhotoDto> {
    return this.profiles.photo(await this.apps.getOwnedApp(appId, user.id));
  }
}

/** The photo itself: public, like any image a client shows. */
@Controller('v1/profile-photos')
export class ProfilePhotosController {
  constructor(private readonly profiles: ProfilesService) {}

  @Get(':file')
  @ApiExcludeEndpoint()
  @Header('Content-Type', 'image/svg+xml')
  @Header('Cache-Control', 'public, max-age=3600')
  photo(@Param('file') file: string): Promise<string> {
    return this.profiles.photoImage(file);
  }
}
