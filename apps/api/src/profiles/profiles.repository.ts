import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppProfileEntity, PROFILE_FIELDS, ProfileField } from './app-profile.entity';

export type ProfileChanges = Partial<Record<ProfileField, string | null>>;

/** The only place that queries app profiles. */
@Injectable()
export class ProfilesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  find(appId: number): Promise<AppProfileEntity | null> {
    return this.ds.getRepository(AppProfileEntity).findOneBy({ appId });
  }

  /** Sets the given fields (null clears one) and leaves the others as they are. */
  async update(appId: number, changes: ProfileChanges): Promise<void> {
    const fields = PROFILE_FIELDS.filter((f) => changes[f] !== undefined);
    if (fields.length === 0) return;
    const values = fields.map((f) => changes[f] ?? null);
    const cols = fields.join(', ');
    const params = fields.map((_, i) => `$${i + 2}`).join(', ');
    const sets = fields.map((f) => `${f} = EXCLUDED.${f}`).join(', ');
    // Field names come from PROFILE_FIELDS only, never from the request.
    await this.ds.query(
      `INSERT INTO app_profiles (app_id, ${cols}) VALUES ($1, ${params})
       ON CONFLICT (app_id) DO UPDATE SET ${sets}, updated_at = now()`,
      [appId, ...values],
    );
  }
}
