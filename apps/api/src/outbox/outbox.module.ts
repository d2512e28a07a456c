import { Module } from '@nestjs/common';
import { Outbox, OutboxRepository, StreamPublisher } from './outbox';

/** The outbox, for every feature that commits something JetStream must then store (sends, consent events). */
@Module({
  providers: [OutboxRepository, StreamPublisher, Outbox],
  exports: [OutboxRepository, StreamPublisher, Outbox],
})
export class OutboxModule {}
