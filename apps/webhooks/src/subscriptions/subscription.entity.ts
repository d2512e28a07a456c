import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { EventFilter, SubscriptionStatus } from '@app/contracts';

/** A tenant's endpoint that receives signed events. */
@Entity({ name: 'subscriptions' })
export class SubscriptionEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'user_id' })
  userId: string;

  @Column('text')
  url: string;

  @Column('text', { array: true })
  events: EventFilter[];

  @Column('integer', { name: 'app_id', nullable: true })
  appId: number | null;

  @Column('text', { nullable: true })
  description: string | null;

  /** Kept as given: it signs every delivery (HMAC needs the key itself). */
  @Column('text')
  secret: string;

  @Column('text', { name: 'previous_secret', nullable: true })
  previousSecret: string | null;

  @Column('timestamptz', { name: 'previous_secret_expires_at', nullable: true })
  previousSecretExpiresAt: Date | null;

  @Column('text')
  status: SubscriptionStatus;

  @Column('text', { name: 'disabled_reason', nullable: true })
  disabledReason: string | null;

  @Column('timestamptz', { name: 'disabled_at', nullable: true })
  disabledAt: Date | null;

  /** The `endpoint.disabled` event announcing the last disabling, published from this row. */
  @Column('text', { name: 'disabled_event_id', nullable: true })
  disabledEventId: string | null;

  @Column('boolean', { name: 'disabled_event_published' })
  disabledEventPublished: boolean;

  /** Start of the current run of failed attempts; null after a success. */
  @Column('timestamptz', { name: 'failing_since', nullable: true })
  failingSince: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}
