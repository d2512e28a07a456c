import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { MessageStatusService } from './message-status.service';
import { MessagesController } from './messages.controller';
import { MessagesRepository } from './messages.repository';
import { MessagesService } from './messages.service';

/** Sending through the priority queue, and each message's status and charge from the channel's events. */
@Module({
  imports: [AppsModule, ConversationsModule, IdempotencyModule],
  controllers: [MessagesController],
  providers: [MessagesRepository, MessagesService, MessageStatusService],
})
export class MessagesModule {}
