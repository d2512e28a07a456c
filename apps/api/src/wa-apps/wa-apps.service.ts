import { Injectable } from '@nestjs/common';
import type { StartSignupReply } from '@app/contracts';
import { ConflictProblem, ForbiddenProblem, NotFoundProblem } from '@app/server';
import { AppEntity } from './app.entity';
import { WaAppsRepository } from './wa-apps.repository';
import { AppDto, CreatedAppDto, EmbedLinkDto } from './dto/app.dto';
import { EmbedLinks } from './embed-links';

const MAX_SERIAL = 2_147_483_647;

/** The app id of a path (`appId`): a positive integer, or null for anything else. */
export function parseNumericId(value: string): number | null {
  if (!/^[1-9][0-9]{0,9}$/.test(value)) return null;
  const id = Number(value);
  return id <= MAX_SERIAL ? id : null;
}

export function unixTime(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

export function toAppDto(app: AppEntity): AppDto {
  return {
    id: app.id,
    uuid: app.uuid,
    name: app.name,
    status: app.status,
    message_limit: app.messageLimit,
    phone_quality: app.phoneQuality,
    phone: app.phone,
    waba_id: app.wabaId,
    phone_number_id: app.phoneNumberId,
    is_mm_lite_supported: app.isMmLiteSupported,
    is_stopped: app.isStopped,
    created_at: unixTime(app.createdAt),
  };
}

export function appAlreadyConnected(): ConflictProblem {
  return new ConflictProblem('app-already-connected', 'App already connected', 'This app already has a number.');
}

@Injectable()
export class WaAppsService {
  constructor(
    private readonly apps: WaAppsRepository,
    private readonly links: EmbedLinks,
  ) {}

  async create(userId: string, name: string): Promise<CreatedAppDto> {
    const app = await this.apps.create(userId, name);
    return { id: app.id, uuid: app.uuid, name: app.name, embed_link_url: this.links.create(app.uuid).url };
  }

  /** A new app of the user and its onboarding link, for the gateway's console ("Connect WhatsApp"). */
  async startSignup(userId: string, name: string): Promise<StartSignupReply> {
    const app = await this.apps.create(userId, name);
    const link = this.links.create(app.uuid);
    return { app_id: app.id, embed_link_url: link.url, expires_at: link.expiresAt };
  }

  /** A fresh onboarding link for the owner's app; none once a number is connected (it could not be used). */
  async freshEmbedLink(appIdParam: string, userId: string): Promise<EmbedLinkDto> {
    const app = await this.getOwnedApp(appIdParam, userId);
    if (app.wabaId) throw appAlreadyConnected();
    const link = this.links.create(app.uuid);
    return { embed_link_url: link.url, expires_at: link.expiresAt };
  }

  /**
   * The app named by a path parameter, for the calling tenant: 404 when no such app exists
   * (or the id is not a number), 403 when it belongs to another tenant.
   */
  async getOwnedApp(appIdParam: string, userId: string): Promise<AppEntity> {
    const id = parseNumericId(appIdParam);
    const app = id === null ? null : await this.apps.findById(id);
    if (!app) throw new NotFoundProblem('app');
    if (app.userId !== userId) throw new ForbiddenProblem('The app belongs to another account.');
    return app;
  }
}
