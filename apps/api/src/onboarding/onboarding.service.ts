import { Injectable, Logger } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { randomInt } from 'node:crypto';
import { newEventId, unixSeconds } from '@app/contracts';
import { EventPublisher } from '@app/messaging';
import { ConflictProblem, NotFoundProblem } from '@app/server';
import { AppEntity } from '../apps/app.entity';
import { AppConnection, AppsRepository } from '../apps/apps.repository';
import { EmbedLinks } from '../apps/embed-links';
import { ApiConfig } from '../config';
import { ConnectedDto } from './dto/connect-number.dto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A numeric id like the channel's (15 digits, no leading zero). */
function sandboxId(): string {
  return `${randomInt(1, 10)}${Array.from({ length: 14 }, () => randomInt(0, 10)).join('')}`;
}

@Injectable()
export class OnboardingService {
  private readonly logger = new Logger(OnboardingService.name);

  constructor(
    private readonly apps: AppsRepository,
    private readonly links: EmbedLinks,
    private readonly events: EventPublisher,
    private readonly config: ApiConfig,
  ) {}

  get mode(): 'sandbox' | 'cloud' {
    return this.config.whatsappMode;
  }

  /** The app an onboarding link opens; a wrong token and an unknown app look alike (404). */
  async appOfLink(uuid: string, token: unknown): Promise<AppEntity> {
    const app = UUID.test(uuid) && this.links.verify(uuid, token) ? await this.apps.findByUuid(uuid) : null;
    if (!app) throw new NotFoundProblem('onboarding link');
    return app;
  }

  /** Sandbox: the emulator accepts any number; the channel ids are made up here. */
  async connectSandbox(app: AppEntity, phone: string): Promise<ConnectedDto> {
    if (this.mode !== 'sandbox') throw new NotFoundProblem('sandbox onboarding');
    return this.connect(app, { phone, wabaId: sandboxId(), phoneNumberId: sandboxId() });
  }

  /** Cloud: records what the channel's embedded signup returned to the page. */
  async connectSignup(app: AppEntity, c: AppConnection): Promise<ConnectedDto> {
    return this.connect(app, c);
  }

  private async connect(app: AppEntity, c: AppConnection): Promise<ConnectedDto> {
    if (app.wabaId) throw this.alreadyConnected();
    let updated: AppEntity | null;
    try {
      updated = await this.apps.connect(app.id, c);
    } catch (err) {
      if (err instanceof QueryFailedError && (err as QueryFailedError & { code?: string }).code === '23505') {
        throw new ConflictProblem(
          'number-already-connected',
          'Number already connected',
          'This business account or number is already connected to another app.',
        );
      }
      throw err;
    }
    if (!updated) throw this.alreadyConnected();
    await this.publishUpdated(updated);
    return { status: updated.status, phone: c.phone, waba_id: c.wabaId };
  }

  private alreadyConnected(): ConflictProblem {
    return new ConflictProblem('app-already-connected', 'App already connected', 'This app already has a number.');
  }

  private async publishUpdated(app: AppEntity): Promise<void> {
    try {
      await this.events.publish({
        id: newEventId(),
        type: 'app.updated',
        created_at: unixSeconds(),
        channel: 'whatsapp',
        app_id: app.id,
        user_id: app.userId,
        data: {
          status: app.status,
          phone: app.phone,
          waba_id: app.wabaId,
          message_limit: app.messageLimit,
          phone_quality: app.phoneQuality,
        },
      });
    } catch (err) {
      // The app is connected either way; the event is a notification, not the record.
      this.logger.error({ err, appId: app.id }, 'could not publish app.updated');
    }
  }
}
