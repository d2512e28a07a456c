import { Module } from '@nestjs/common';
import { MessagesRepository } from './messages.repository';

/** The messages and their timelines: written by sending, moved on by statuses, read by both. */
@Module({
  providers: [MessagesRepository],
  exports: [MessagesRepository],
})
export class MessageStoreModule {}
