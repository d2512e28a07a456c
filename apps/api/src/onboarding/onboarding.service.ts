import { Injectable, Logger } from '@nestjs/common';
import { isPgError, PG_ERROR } from '@app/database';
import { randomInt } from 'node:crypto';
import { CompleteSignupRequest } from '@app/contracts';
import { ConflictProblem, NotFoundProblem, ProblemError } from '@app/server';
import { AppEntity } from '../wa-apps/app.entity';
import { AppConnection, WaAppsRepository } from '../wa-apps/wa-apps.repository';
import { appAlreadyConnected } from '../wa-apps/wa-apps.service';
import { EmbedLinks } from '../wa-apps/embed-links';
import { AppEvents } from '../wa-apps/app-events';
import { ApiConfig } from '../config';
import { ChannelRejectedError, WhatsAppTemplatesChannel } from '../templates/whatsapp-templates.channel';
import { ConnectedDto } from './dto/connect-number.dto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A numeric id like the channel's (15 digits, no leading zero). */
function sandboxId(): string {
  return `${randomInt(1, 10)}${Array.from({ length: 14 }, () => randomInt(0, 10)).join('')}`;
}

/** A link that was genuine but no longer opens anything: expired, or spent on a connected number. */
export class LinkGoneProblem extends ProblemError {
  constructor(readonly reason: 'expired' | 'used') {
    super(
      410,
      reason === 'expired' ? 'link-expired' : 'link-used',
      reason === 'expired' ? 'Onboarding link expired' : 'Onboarding link already used',
      reason === 'expired'
        ? 'This onboarding link has expired; ask the app owner for a new one.'
        : 'This onboarding link has already connected a number.',
    );
  }
}

const numberAlreadyConnected = () =>
  new ConflictProblem(
    'number-already-connected',
    'Number already connected',
    'This business account or number is already connected to another app.',
  );

/** The channel's refusal of a signup, as the business's problem (nothing was recorded). */
function signupRefusal(err: ChannelRejectedError): ProblemError {
  const code = err.error.code ?? '';
  if (code === 'signup_waba_not_granted' || code === 'signup_number_not_granted') {
    return new ProblemError(403, 'signup-not-granted', 'Signup did not grant this number', err.error.message);
  }
  if (code === 'signup_code_invalid') {
    return new ProblemError(422, 'signup-code-invalid', 'Signup code not valid', err.error.message);
  }
  return new ProblemError(422, 'signup-refused-by-channel', 'Signup refused by the channel', err.error.message, {
    ...(code ? { channel_code: code } : {}),
  });
}

@Injectable()
export class OnboardingService {
  private readonly logger = new Logger(OnboardingService.name);

  constructor(
    private readonly apps: WaAppsRepository,
    private readonly links: EmbedLinks,
    private readonly appEvents: AppEvents,
    private readonly config: ApiConfig,
    private readonly channel: WhatsAppTemplatesChannel,
  ) {}

  get mode(): 'sandbox' | 'cloud' {
    return this.config.whatsappMode;
  }

  /**
   * The app an onboarding link opens. A wrong token and an unknown app look alike (404); a
   * genuine link that expired or already connected a number is gone (410).
   */
  async appOfLink(uuid: string, token: unknown): Promise<AppEntity> {
    const check = UUID.test(uuid) ? this.links.check(uuid, token) : 'invalid';
    const app = check === 'invalid' ? null : await this.apps.findByUuid(uuid);
    if (!app) throw new NotFoundProblem('onboarding link');
    if (check === 'expired') throw new LinkGoneProblem('expired');
    if (app.wabaId) throw new LinkGoneProblem('used');
    return app;
  }

  /** Sandbox: the emulator accepts any number; the channel ids are made up here. */
  async connectSandbox(app: AppEntity, phone: string): Promise<ConnectedDto> {
    if (this.mode !== 'sandbox') throw new NotFoundProblem('sandbox onboarding');
    return this.connect(app, { phone, wabaId: sandboxId(), phoneNumberId: sandboxId() });
  }

  /**
   * Embedded signup: the page's ids are a claim. The channel exchanges the code, proves the signup
   * granted this WABA and number, reads the number, subscribes the app and registers the number;
   * only then is anything recorded.
   */
  async connectSignup(app: AppEntity, claim: CompleteSignupRequest): Promise<ConnectedDto> {
    if (app.wabaId) throw appAlreadyConnected();
    // Refused before the code is spent: the number is another app's already.
    if ((await this.apps.findByWabaId(claim.waba_id)) || (await this.apps.findByPhoneNumberId(claim.phone_number_id))) {
      throw numberAlreadyConnected();
    }
    let verified;
    try {
      verified = await this.channel.completeSignup(claim);
    } catch (err) {
      if (!(err instanceof ChannelRejectedError)) throw err;
      this.logger.warn({ appId: app.id, wabaId: claim.waba_id, code: err.error.code }, 'embedded signup refused');
      throw signupRefusal(err);
    }
    return this.connect(app, {
      phone: verified.phone,
      wabaId: verified.waba_id,
      phoneNumberId: verified.phone_number_id,
    });
  }

  private async connect(app: AppEntity, c: AppConnection): Promise<ConnectedDto> {
    if (app.wabaId) throw appAlreadyConnected();
    let updated: AppEntity | null;
    try {
      updated = await this.apps.connect(app.id, c);
    } catch (err) {
      if (isPgError(err, PG_ERROR.uniqueViolation)) {
        throw numberAlreadyConnected();
      }
      throw err;
    }
    if (!updated) throw appAlreadyConnected();
    await this.publishUpdated(updated);
    return { status: updated.status, phone: c.phone, waba_id: c.wabaId };
  }

  private publishUpdated(app: AppEntity): Promise<void> {
    return this.appEvents.updated(app, {
      status: app.status,
      phone: app.phone,
      waba_id: app.wabaId,
      message_limit: app.messageLimit,
      phone_quality: app.phoneQuality,
    });
  }
}
