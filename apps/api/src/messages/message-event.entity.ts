import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { MessageStatus } from '@app/contracts';

/** One step of a message's timeline; a status is recorded once, so a repeated callback is a no-op. */
@Entity({ name: 'message_events' })
export class MessageEventEntity {
  @PrimaryColumn('text', { name: 'message_id' })
  messageId: string;

  @PrimaryColumn('text')
  status: MessageStatus;

  /** Unix seconds at which the channel observed it. */
  @Column('bigint', { name: 'occurred_at', transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  occurredAt: number;

  @Column('timestamptz', { name: 'recorded_at' })
  recordedAt: Date;
}
