import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  APP_NAME_LENGTH,
  APPS_RPC,
  DescribeAppReply,
  DescribeAppRequest,
  ResolveConnectionReply,
  ResolveConnectionRequest,
  isUuid,
  RpcReply,
  StartSignupReply,
  StartSignupRequest,
} from '@app/contracts';
import { isPgError } from '@app/database';
import { rpcAnswer } from '@app/messaging';
import { NotFoundProblem, rpcProblemOf, ValidationProblem } from '@app/server';
import { AppEntity } from './app.entity';
import { WaAppsRepository } from './wa-apps.repository';
import { WaAppsService } from './wa-apps.service';

/** PostgreSQL's foreign_key_violation: the app's user does not exist. */
const FOREIGN_KEY_VIOLATION = '23503';

const NONE: ResolveConnectionReply = { app_id: null, user_id: null };

/** Ids on the channel are short digit strings; anything else cannot name an app and is not looked up. */
const isChannelId = (v: unknown): v is string => typeof v === 'string' && /^[0-9]{1,64}$/.test(v);

/**
 * Request/reply for services that know a channel connection but not its tenant (the gateway, for
 * events from channel callbacks). An unknown connection is an answer (nulls), not an error; a
 * database failure is thrown so the caller treats the tenant as unknown for now and retries.
 */
@Controller()
export class WaAppsRpcController {
  constructor(
    private readonly apps: WaAppsRepository,
    private readonly service: WaAppsService,
  ) {}

  @MessagePattern(APPS_RPC.resolveConnection)
  resolveConnection(@Payload() req: ResolveConnectionRequest): Promise<RpcReply<ResolveConnectionReply>> {
    // A database failure is thrown on (no refusal to recognise): the caller sees the lookup fail.
    return rpcAnswer(
      () => this.resolve(req),
      () => undefined,
    );
  }

  private async resolve(req: ResolveConnectionRequest): Promise<ResolveConnectionReply> {
    if (!req || req.channel !== 'whatsapp') return NONE;
    let app: AppEntity | null = null;
    if (isChannelId(req.phone_number_id)) app = await this.apps.findByPhoneNumberId(req.phone_number_id);
    if (!app && isChannelId(req.waba_id)) app = await this.apps.findByWabaId(req.waba_id);
    return app ? { app_id: app.id, user_id: app.userId } : NONE;
  }

  /** An app by id, for linking it elsewhere; the caller checks that its own user owns it. */
  @MessagePattern(APPS_RPC.describe)
  describe(@Payload() req: DescribeAppRequest): Promise<RpcReply<DescribeAppReply>> {
    return rpcAnswer(
      () => this.describeApp(req),
      () => undefined,
    );
  }

  private async describeApp(req: DescribeAppRequest): Promise<DescribeAppReply> {
    const id = req?.app_id;
    if (!Number.isSafeInteger(id) || id <= 0 || id > 2_147_483_647) return { found: false };
    const app = await this.apps.findById(id);
    if (!app) return { found: false };
    return {
      found: true,
      app_id: app.id,
      user_id: app.userId,
      status: app.status,
      is_stopped: app.isStopped,
      phone_number_id: app.phoneNumberId,
      waba_id: app.wabaId,
      phone: app.phone,
    };
  }

  /** A new app of the user with its onboarding link: the gateway's console starts a WhatsApp signup. */
  @MessagePattern(APPS_RPC.startSignup)
  startSignup(@Payload() req: StartSignupRequest): Promise<RpcReply<StartSignupReply>> {
    return rpcAnswer(async () => {
      if (!isUuid(req?.user_id)) throw new NotFoundProblem('user');
      const name = typeof req.name === 'string' ? req.name.trim() : '';
      if (name.length < APP_NAME_LENGTH.min || name.length > APP_NAME_LENGTH.max) {
        throw new ValidationProblem([
          { field: 'name', message: `name must be ${APP_NAME_LENGTH.min} to ${APP_NAME_LENGTH.max} characters` },
        ]);
      }
      try {
        return await this.service.startSignup(req.user_id, name);
      } catch (err) {
        if (isPgError(err, FOREIGN_KEY_VIOLATION)) throw new NotFoundProblem('user');
        throw err;
      }
    }, rpcProblemOf);
  }
}
