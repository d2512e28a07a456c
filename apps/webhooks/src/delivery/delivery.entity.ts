import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { DeliveryStatus } from '@app/contracts';

/** One event to one subscription: the unit that is signed, sent, retried and resent. */
@Entity({ name: 'deliveries' })
export class DeliveryEntity {
  @PrimaryColumn('uuid')
  id: string;

  /** Insertion order, the tie-breaker after the stream sequence. */
  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  @Column('uuid', { name: 'subscription_id' })
  subscriptionId: string;

  /** The event id: also the `webhook-id` header, the same on every attempt. */
  @Column('text', { name: 'event_id' })
  eventId: string;

  @Column('text', { name: 'event_type' })
  eventType: string;

  @Column('timestamptz', { name: 'event_created_at' })
  eventCreatedAt: Date;

  /** Position of the event in the EVENTS stream (0 for test events): per-subscription order. */
  @Column('bigint', { name: 'stream_seq' })
  streamSeq: string;

  /** Deliveries with the same key (the events of one message) go out one after another, in order. */
  @Column('text', { name: 'order_key', nullable: true })
  orderKey: string | null;

  /** The W3C trace context of the event it came from (tracing on), the parent of each attempt's span. */
  @Column('text', { nullable: true })
  traceparent: string | null;

  /** The exact bytes that are signed and sent; null once the retention period has passed. */
  @Column('text', { nullable: true })
  payload: string | null;

  @Column('text')
  status: DeliveryStatus;

  @Column('integer')
  attempts: number;

  /** Failed attempts since the delivery was created or last resent: the step in the schedule. */
  @Column('integer', { name: 'retry_index' })
  retryIndex: number;

  @Column('timestamptz', { name: 'next_attempt_at', nullable: true })
  nextAttemptAt: Date | null;

  /** Set while a dispatcher holds the delivery; expires so a crashed holder does not keep it. */
  @Column('timestamptz', { name: 'locked_until', nullable: true })
  lockedUntil: Date | null;

  @Column('timestamptz', { name: 'last_attempt_at', nullable: true })
  lastAttemptAt: Date | null;

  @Column('integer', { name: 'last_response_status', nullable: true })
  lastResponseStatus: number | null;

  @Column('text', { name: 'last_error', nullable: true })
  lastError: string | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'finished_at', nullable: true })
  finishedAt: Date | null;
}
