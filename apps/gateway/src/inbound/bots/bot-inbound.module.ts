import { Module } from '@nestjs/common';
import { AccountsModule } from '../../accounts/accounts.module';
import { ConnectionsModule } from '../../connections/connections.module';
import { PublicRateLimitModule } from '../../public-rate-limit/public-rate-limit.guard';
import { BotInboundController } from './bot-inbound.controller';
import { BotInboundService } from './bot-inbound.service';

@Module({
  imports: [AccountsModule, ConnectionsModule, PublicRateLimitModule],
  controllers: [BotInboundController],
  providers: [BotInboundService],
})
export class BotInboundModule {}
