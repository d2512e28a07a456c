import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** An API token, stored only as the SHA-256 of the string the user was shown once. */
@Entity({ name: 'api_tokens' })
export class ApiTokenEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'user_id' })
  userId: string;

  @Index({ unique: true })
  @Column('char', { length: 64, name: 'token_hash' })
  tokenHash: string;

  @Column('text', { nullable: true })
  label: string | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}
