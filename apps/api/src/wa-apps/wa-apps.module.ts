import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { AuthModule } from '../auth/auth.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { WaAppsController } from './wa-apps.controller';
import { WaAppsRepository } from './wa-apps.repository';
import { WaAppsRpcController } from './wa-apps.rpc.controller';
import { WaAppsService } from './wa-apps.service';
import { EmbedLinks } from './embed-links';
import { AppEvents } from './app-events';

/** Applications (business accounts), and the tenant of a channel connection over RPC. Exports the repository and the tenant check for other features. */
@Module({
  imports: [AuthModule, RateLimitModule],
  controllers: [WaAppsController, WaAppsRpcController],
  providers: [Clock, WaAppsRepository, WaAppsService, EmbedLinks, AppEvents],
  exports: [WaAppsRepository, WaAppsService, EmbedLinks, AppEvents],
})
export class WaAppsModule {}
