import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { TokenKind } from '@app/auth';

/** A tenant of the API. System users call the API; real users' tokens are refused there. */
@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('text')
  name: string;

  @Column('text')
  kind: TokenKind;

  @Column('char', { length: 3 })
  currency: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;
}
