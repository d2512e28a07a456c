import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A gateway token of a connected account, stored only as its SHA-256. */
@Entity({ name: 'account_tokens' })
export class AccountTokenEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'account_id' })
  accountId: string;

  @Column('char', { length: 64, name: 'token_hash', unique: true })
  tokenHash: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}
