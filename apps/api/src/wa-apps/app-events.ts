import { Injectable, Logger } from '@nestjs/common';
import { newEventId, unixSeconds } from '@app/contracts';
import { EventPublisher } from '@app/messaging';
import { AppEntity } from './app.entity';

/** `app.updated` to EVENTS (and so to webhook subscribers), for every change of an app's state. */
@Injectable()
export class AppEvents {
  private readonly logger = new Logger(AppEvents.name);

  constructor(private readonly events: EventPublisher) {}

  /**
   * Publishes what changed. The app's record is the truth either way; the event is a
   * notification, so a failed publish is logged and the change stands.
   */
  async updated(app: AppEntity, data: Record<string, unknown>): Promise<void> {
    try {
      await this.events.publish({
        id: newEventId(),
        type: 'app.updated',
        created_at: unixSeconds(),
        channel: 'whatsapp',
        app_id: app.id,
        user_id: app.userId,
        data,
      });
    } catch (err) {
      this.logger.error({ err, appId: app.id }, 'could not publish app.updated');
    }
  }
}
