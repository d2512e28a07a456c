import { Injectable, Logger } from '@nestjs/common';
import { EventType, newEventId, TemplateUpdatedData } from '@app/contracts';
import { EventPublisher } from '@app/messaging';
import { Clock } from '@app/server';
import { AppEntity } from './app.entity';

/**
 * What the api tells EVENTS (and so webhook subscribers) about an app and its templates:
 * `app.updated` for every change of an app's state, `template.updated` for a template category
 * change the api found itself (the periodic sync).
 */
@Injectable()
export class AppEvents {
  private readonly logger = new Logger(AppEvents.name);

  constructor(
    private readonly events: EventPublisher,
    private readonly clock: Clock,
  ) {}

  /** Publishes what changed. */
  updated(app: AppEntity, data: Record<string, unknown>): Promise<void> {
    return this.publish('app.updated', app, data);
  }

  /** A template of the app moved to another category. */
  templateUpdated(app: AppEntity, data: TemplateUpdatedData): Promise<void> {
    return this.publish('template.updated', app, data as unknown as Record<string, unknown>);
  }

  /**
   * The app's record is the truth either way; the event is a notification, so a failed publish is
   * logged and the change stands.
   */
  private async publish(type: EventType, app: AppEntity, data: Record<string, unknown>): Promise<void> {
    try {
      await this.events.publish({
        id: newEventId(),
        type,
        created_at: this.clock.nowSeconds(),
        channel: 'whatsapp',
        app_id: app.id,
        user_id: app.userId,
        data,
      });
    } catch (err) {
      this.logger.error({ err, appId: app.id }, `could not publish ${type}`);
    }
  }
}
