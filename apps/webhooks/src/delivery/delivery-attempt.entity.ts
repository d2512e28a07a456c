import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { AttemptStatus } from '@app/contracts';

/** One HTTP request to a subscriber, successful or not. */
@Entity({ name: 'delivery_attempts' })
export class DeliveryAttemptEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'delivery_id' })
  deliveryId: string;

  @Column('uuid', { name: 'subscription_id' })
  subscriptionId: string;

  @Column('text', { name: 'event_id' })
  eventId: string;

  @Column('text', { name: 'event_type' })
  eventType: string;

  @Column('integer')
  attempt: number;

  @Column('text')
  status: AttemptStatus;

  @Column('integer', { name: 'response_status', nullable: true })
  responseStatus: number | null;

  @Column('integer', { name: 'latency_ms' })
  latencyMs: number;

  @Column('text', { name: 'response_excerpt', nullable: true })
  responseExcerpt: string | null;

  @Column('text', { nullable: true })
  error: string | null;

  @Column('timestamptz', { name: 'next_retry_at', nullable: true })
  nextRetryAt: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}
