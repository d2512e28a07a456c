export { EventsModule } from './events.module';
export { EventHandlersRegistry } from './event-handlers.registry';
export type { EventHandler } from './event-handlers.registry';
