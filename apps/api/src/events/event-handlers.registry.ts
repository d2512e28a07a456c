import { Injectable } from '@nestjs/common';
import { EventEnvelope, EventType } from '@app/contracts';

/** Handles one event; must be idempotent (an event may be seen twice). Throw to have it retried. */
export type EventHandler = (event: EventEnvelope) => Promise<void>;

/** Feature modules register what they do with each event type; the consumer dispatches. */
@Injectable()
export class EventHandlersRegistry {
  private readonly handlers = new Map<EventType, EventHandler[]>();

  on(type: EventType, handler: EventHandler): void {
    this.handlers.set(type, [...(this.handlers.get(type) ?? []), handler]);
  }

  async dispatch(event: EventEnvelope): Promise<void> {
    for (const handler of this.handlers.get(event.type) ?? []) await handler(event);
  }
}
