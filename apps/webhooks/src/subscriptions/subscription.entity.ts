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

  /** Sealed with the key `secretKeyId` (see SecretCipher): HMAC needs the secret itself, so it is encrypted, not hashed. */
  @Column('text')
  secret: string;

  @Column('text', { name: 'previous_secret', nullable: true })
  previousSecret: string | null;

  /** The key that sealed both secrets; null for a row stored in clear before sealing existed. */
  @Column('text', { name: 'secret_key_id', nullable: true })
  secretKeyId: string | null;

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

  /** While an endpoint fails, nothing is sent to it before this time; then one probe goes out. */
  @Column('timestamptz', { name: 'parked_until', nullable: true })
  parkedUntil: Date | null;

  /** Failed probes in a row: the step of the retry schedule the next parking waits. */
  @Column('integer', { name: 'probe_index' })
  probeIndex: number;

  /** The last attempt succeeded: the whole window is open (otherwise one attempt at a time). */
  @Column('boolean', { name: 'window_open' })
  windowOpen: boolean;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}
