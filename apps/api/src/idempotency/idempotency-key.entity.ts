import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** The first answer to a request sent with an Idempotency-Key, replayed to its repeats. */
@Entity({ name: 'idempotency_keys' })
export class IdempotencyKeyEntity {
  @PrimaryColumn('uuid', { name: 'user_id' })
  userId: string;

  @PrimaryColumn('text')
  key: string;

  /** SHA-256 of method, path and canonical body. */
  @Column('char', { length: 64, name: 'request_hash' })
  requestHash: string;

  /** PENDING while the first request runs; COMPLETED once its answer is stored. */
  @Column('text')
  state: 'PENDING' | 'COMPLETED';

  @Column('integer', { name: 'response_status', nullable: true })
  responseStatus: number | null;

  @Column('jsonb', { name: 'response_body', nullable: true })
  responseBody: unknown;

  /** The request holding the key: a token drawn by each claim and takeover (null on keys claimed before tokens). */
  @Column('uuid', { nullable: true })
  holder: string | null;

  /** The message the holder's send committed under the key, written by that send's own statement. */
  @Column('text', { name: 'message_id', nullable: true })
  messageId: string | null;

  /** When the key was claimed; while PENDING, renewed by its live request (the lease, IDEMPOTENCY_LEASE_SECONDS). */
  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;
}
