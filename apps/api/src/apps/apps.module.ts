import { Module } from '@nestjs/common';
import { AppsController } from './apps.controller';
import { AppsRepository } from './apps.repository';
import { AppsService } from './apps.service';
import { EmbedLinks } from './embed-links';

/** Applications (business accounts). Exports the repository and the tenant check for other features. */
@Module({
  controllers: [AppsController],
  providers: [AppsRepository, AppsService, EmbedLinks],
  exports: [AppsRepository, AppsService, EmbedLinks],
})
export class AppsModule {}
