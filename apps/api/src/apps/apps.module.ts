import { Module } from '@nestjs/common';
import { AppsController } from './apps.controller';
import { AppsRepository } from './apps.repository';
import { AppsRpcController } from './apps.rpc.controller';
import { AppsService } from './apps.service';
import { EmbedLinks } from './embed-links';

/** Applications (business accounts), and the tenant of a channel connection over RPC. Exports the repository and the tenant check for other features. */
@Module({
  controllers: [AppsController, AppsRpcController],
  providers: [AppsRepository, AppsService, EmbedLinks],
  exports: [AppsRepository, AppsService, EmbedLinks],
})
export class AppsModule {}
