import { Injectable } from '@nestjs/common';
import { EventEnvelope } from '@app/contracts';
import { AppEntity } from '../wa-apps/app.entity';
import { WaAppsRepository } from '../wa-apps/wa-apps.repository';
import { MessageEntity } from '../messages/message.entity';

/**
 * Which status events may settle a message. The queue's own reports name no connection; a channel
 * callback names the connection (phone_number_id) it came from, and only a message sent from that
 * connection's app may be moved (and its hold captured or released) by it.
 */
@Injectable()
export class CallbackOwnership {
  constructor(private readonly apps: WaAppsRepository) {}

  /** For each event and its message (null: none), whether the event may update it; each app is read once. */
  async mayUpdateAll(pairs: { event: EventEnvelope; message: MessageEntity | null }[]): Promise<boolean[]> {
    const apps = new Map<number, Promise<AppEntity | null>>();
    const app = (id: number) => {
      if (!apps.has(id)) apps.set(id, this.apps.findById(id));
      return apps.get(id)!;
    };
    return Promise.all(
      pairs.map(async ({ event, message }) => {
        if (!message) return false;
        const connection = (event.data as { connection_id?: unknown } | null)?.connection_id;
        if (connection === undefined || connection === null) return true;
        if (event.app_id !== null && event.app_id !== undefined && event.app_id !== message.appId) return false;
        if (message.appId === null) return false;
        const owner = await app(message.appId);
        return owner !== null && owner.phoneNumberId === connection;
      }),
    );
  }
}
