export { OutboxModule } from './outbox.module';
export { Outbox, OutboxRepository, StreamPublisher } from './outbox';
export type { OutboxEntry } from './outbox';
