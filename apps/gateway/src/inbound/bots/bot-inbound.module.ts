import { Module } from '@nestjs/common';
import { AccountsModule } from '../../accounts/accounts.module';
import { ConnectionsModule } from '../../connections/connections.module';
import { BotInboundController } from './bot-inbound.controller';
import { BotInboundService } from './bot-inbound.service';

@Module({
  imports: [AccountsModule, ConnectionsModule],
  controllers: [BotInboundController],
  providers: [BotInboundService],
})
export class BotInboundModule {}
