import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { EventsModule } from '../events/events.module';
import { ConversationsRepository } from './conversations.repository';
import { ConversationsService } from './conversations.service';

/** The 24-hour customer-service windows, fed by `message.received`. */
@Module({
  imports: [EventsModule],
  providers: [Clock, ConversationsRepository, ConversationsService],
  exports: [ConversationsService],
})
export class ConversationsModule {}
