import { Module } from '@nestjs/common';
import { EventHandlersRegistry } from './event-handlers.registry';
import { EventsConsumer } from './events.consumer';

/** Inject EventHandlersRegistry in a feature service and call `on(type, handler)` in its constructor or onModuleInit. */
@Module({
  providers: [EventHandlersRegistry, EventsConsumer],
  exports: [EventHandlersRegistry],
})
export class EventsModule {}
