import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { APPS_RPC, ResolveConnectionReply, ResolveConnectionRequest } from '@app/contracts';
import { AppEntity } from './app.entity';
import { AppsRepository } from './apps.repository';

const NONE: ResolveConnectionReply = { app_id: null, user_id: null };

/** Ids on the channel are short digit strings; anything else cannot name an app and is not looked up. */
const isChannelId = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 64;

/**
 * Request/reply for services that know a channel connection but not its tenant (the gateway, for
 * events from channel callbacks). An unknown connection is an answer (nulls), not an error; a
 * database failure is thrown so the caller treats the tenant as unknown for now and retries.
 */
@Controller()
export class AppsRpcController {
  constructor(private readonly apps: AppsRepository) {}

  @MessagePattern(APPS_RPC.resolveConnection)
  async resolveConnection(@Payload() req: ResolveConnectionRequest): Promise<ResolveConnectionReply> {
    if (!req || req.channel !== 'whatsapp') return NONE;
    let app: AppEntity | null = null;
    if (isChannelId(req.phone_number_id)) app = await this.apps.findByPhoneNumberId(req.phone_number_id);
    if (!app && isChannelId(req.waba_id)) app = await this.apps.findByWabaId(req.waba_id);
    return app ? { app_id: app.id, user_id: app.userId } : NONE;
  }
}
