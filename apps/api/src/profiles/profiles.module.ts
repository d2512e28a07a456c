import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { WaAppsModule } from '../wa-apps/wa-apps.module';
import { ProfilePhotosController, ProfilesController } from './profiles.controller';
import { ProfilesRepository } from './profiles.repository';
import { ProfilesService } from './profiles.service';

/** Business profile of an app and its photo. */
@Module({
  imports: [AuthModule, RateLimitModule, WaAppsModule],
  controllers: [ProfilesController, ProfilePhotosController],
  providers: [ProfilesRepository, ProfilesService],
})
export class ProfilesModule {}
