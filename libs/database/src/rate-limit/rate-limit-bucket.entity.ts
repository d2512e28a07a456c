import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A token bucket per bearer token, shared by every replica of a service (unlogged table: disposable state). */
@Entity({ name: 'rate_limits' })
export class RateLimitBucketEntity {
  /** `token:<sha256 of the bearer token>`. */
  @PrimaryColumn('text')
  key: string;

  @Column('double precision')
  tokens: number;

  /** Whether the last request taken from this bucket was allowed. */
  @Column('boolean')
  allowed: boolean;

  @Column('timestamptz', { name: 'refilled_at' })
  refilledAt: Date;
}
