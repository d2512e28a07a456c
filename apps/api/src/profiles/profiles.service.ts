import { Injectable } from '@nestjs/common';
import { NotFoundProblem } from '@app/server';
import { AppEntity } from '../wa-apps/app.entity';
import { WaAppsRepository } from '../wa-apps/wa-apps.repository';
import { ApiConfig } from '../config';
import { PROFILE_FIELDS } from './app-profile.entity';
import { ProfileDto, ProfilePhotoDto } from './dto/profile.dto';
import { UpdateProfileDto } from './dto/update-profile.dto';
import { renderProfilePhoto } from './profile-photo';
import { ProfileChanges, ProfilesRepository } from './profiles.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

@Injectable()
export class ProfilesService {
  constructor(
    private readonly profiles: ProfilesRepository,
    private readonly apps: WaAppsRepository,
    private readonly config: ApiConfig,
  ) {}

  async get(app: AppEntity): Promise<ProfileDto> {
    const row = await this.profiles.find(app.id);
    const out: ProfileDto = {};
    for (const f of PROFILE_FIELDS) {
      const v = row?.[f];
      if (v !== null && v !== undefined) out[f] = v;
    }
    return out;
  }

  async update(app: AppEntity, dto: UpdateProfileDto): Promise<void> {
    const changes: ProfileChanges = {};
    for (const f of PROFILE_FIELDS) {
      const v = dto[f];
      if (v === undefined) continue;
      changes[f] = v === null || v === '' ? null : f === 'country' ? v.toUpperCase() : v;
    }
    await this.profiles.update(app.id, changes);
  }

  /** The photo URL is public (image tags carry no token) and keyed by the unguessable app uuid. */
  photo(app: AppEntity): ProfilePhotoDto {
    const base = this.config.API_PUBLIC_URL.replace(/\/+$/, '');
    return { url: `${base}/api/v1/profile-photos/${app.uuid}.svg` };
  }

  async photoImage(file: string): Promise<string> {
    const uuid = file.toLowerCase().endsWith('.svg') ? file.slice(0, -4).toLowerCase() : '';
    const app = UUID.test(uuid) ? await this.apps.findByUuid(uuid) : null;
    if (!app) throw new NotFoundProblem('profile photo');
    return renderProfilePhoto(app.uuid, app.name);
  }
}
