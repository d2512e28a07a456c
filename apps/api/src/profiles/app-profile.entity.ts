import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export const PROFILE_FIELDS = ['address', 'country', 'description', 'email', 'website', 'about'] as const;
export type ProfileField = (typeof PROFILE_FIELDS)[number];

/** The business profile of an app; a column is null when the business has not set it. */
@Entity({ name: 'app_profiles' })
export class AppProfileEntity {
  @PrimaryColumn('integer', { name: 'app_id' })
  appId: number;

  @Column('text', { nullable: true })
  address: string | null;

  @Column('text', { nullable: true })
  country: string | null;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text', { nullable: true })
  email: string | null;

  @Column('text', { nullable: true })
  website: string | null;

  @Column('text', { nullable: true })
  about: string | null;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}
