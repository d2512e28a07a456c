import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The customer-service window of one recipient with one app: open for 24 hours after their last inbound message. */
@Entity({ name: 'conversation_windows' })
export class ConversationWindowEntity {
  @PrimaryColumn('integer', { name: 'app_id' })
  appId: number;

  @PrimaryColumn('text')
  recipient: string;

  @Column('timestamptz', { name: 'last_inbound_at' })
  lastInboundAt: Date;
}
