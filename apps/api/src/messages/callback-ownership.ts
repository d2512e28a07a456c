import { Injectable } from '@nestjs/common';
import { EventEnvelope } from '@app/contracts';
import { WaAppsRepository } from '../wa-apps/wa-apps.repository';
import { MessageEntity } from './message.entity';

/**
 * Which status events may settle a message. The queue's own reports name no connection; a channel
 * callback names the connection (phone_number_id) it came from, and only a message sent from that
 * connection's app may be moved (and its hold captured or released) by it.
 */
@Injectable()
export class CallbackOwnership {
  constructor(private readonly apps: WaAppsRepository) {}

  async mayUpdate(event: EventEnvelope, message: MessageEntity): Promise<boolean> {
    const connection = (event.data as { connection_id?: unknown } | null)?.connection_id;
    if (connection === undefined || connection === null) return true;
    if (event.app_id !== null && event.app_id !== undefined && event.app_id !== message.appId) return false;
    if (message.appId === null) return false;
    const app = await this.apps.findById(message.appId);
    return app !== null && app.phoneNumberId === connection;
  }
}
