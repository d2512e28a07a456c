import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { BotTemplatesRpcController } from './bot-templates.rpc.controller';
import { BotTemplatesRepository } from './bot-templates.repository';
import { BotTemplatesService } from './bot-templates.service';

/** The gateway accounts' bot templates (Telegram and MAX), read by the send path. */
@Module({
  controllers: [BotTemplatesRpcController],
  providers: [Clock, BotTemplatesRepository, BotTemplatesService],
  exports: [BotTemplatesRepository],
})
export class BotTemplatesModule {}
