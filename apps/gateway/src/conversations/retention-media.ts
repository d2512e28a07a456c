import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { MediaStore } from '../media/media-store';
import { PurgedMessage } from './retention.repository';

/**
 * Deletes the stored files of messages whose content is purged: the media store's object (named
 * by the conversation message id) and what was recorded of it (`inbound_media`: its name, type and
 * size), so a purge removes media as well as text.
 */
@Injectable()
export class PurgedMediaCleaner {
  constructor(private readonly store: MediaStore) {}

  async forget(messages: PurgedMessage[], db: EntityManager): Promise<void> {
    if (!messages.length) return;
    for (const m of messages) await this.store.delete(m.id);
    await db.query(`DELETE FROM inbound_media WHERE message_id = ANY($1::uuid[])`, [messages.map((m) => m.id)]);
  }
}
