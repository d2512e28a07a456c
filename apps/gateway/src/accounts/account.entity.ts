import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A connected account of the main site: the gateway's tenant. No public registration. */
@Entity({ name: 'accounts' })
export class AccountEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('text')
  name: string;

  /** The api user this account belongs to (billing, templates), when linked. */
  @Column('uuid', { name: 'user_id', nullable: true })
  userId: string | null;

  /** The IANA time zone of the account's contacts that name none. */
  @Column('text', { name: 'time_zone', default: 'UTC' })
  timeZone: string;

  /** Where national phone numbers of its contacts and sends are read (ISO 3166 alpha-2), if anywhere. */
  @Column('text', { name: 'default_region', nullable: true })
  defaultRegion: string | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;
}
