import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { ProfilePhotosController, ProfilesController } from './profiles.controller';
import { ProfilesRepository } from './profiles.repository';
import { ProfilesService } from './profiles.service';

/** Business profile of an app and its photo. */
@Module({
  imports: [AppsModule],
  controllers: [ProfilesController, ProfilePhotosController],
  providers: [ProfilesRepository, ProfilesService],
})
export class ProfilesModule {}
