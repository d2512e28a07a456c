import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { AccountsModule } from '../../accounts/accounts.module';
import { ConnectionsModule } from '../../connections/connections.module';
import { PublicRateLimitModule } from '../../public-rate-limit/public-rate-limit.guard';
import { BotInboundController } from './bot-inbound.controller';
import { BotInboundService } from './bot-inbound.service';

@Module({
  imports: [AccountsModule, ConnectionsModule, PublicRateLimitModule],
  controllers: [BotInboundController],
  providers: [Clock, BotInboundService],
})
export class BotInboundModule {}
