import { Injectable } from '@nestjs/common';
import {
  GATEWAY_TEMPLATES_RPC,
  GatewayTemplateView,
  GetGatewayTemplateResult,
  ListGatewayTemplatesResult,
  SendContent,
} from '@app/contracts';
import { RpcClient } from '@app/messaging';
import { ValidationProblem } from '@app/server';
import { AuthenticatedAccount, billedUser } from '../accounts/authenticated-account';
import { MediaLibraryService } from '../media/library/media-library.service';
import { ConnectionsRepository } from '../connections/connections.repository';
import { liveSendersOf } from '../messages/send-route';
import {
  CreateBotTemplateDto,
  GetGatewayTemplateDto,
  isTemplateName,
  ListGatewayTemplatesDto,
} from './dto/gateway-template.dto';

const RPC_TIMEOUT_MS = 5_000;
const UNAVAILABLE = { timeoutMs: RPC_TIMEOUT_MS, unavailable: 'Templates cannot be reached right now; retry later.' };

/**
 * `/v1/templates` (docs/gateway.md#templates): the account's bot templates, stored in the api
 * beside the WhatsApp app's Meta templates (which stay managed through the api and Meta).
 */
@Injectable()
export class GatewayTemplatesService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly connections: ConnectionsRepository,
    private readonly library: MediaLibraryService,
  ) {}

  async create(account: AuthenticatedAccount, dto: CreateBotTemplateDto): Promise<GatewayTemplateView> {
    // A media library file in the content: the account's, of its type, within the bot channels' caps.
    await this.library.checkContent(account, dto.content as SendContent, ['telegram', 'max']);
    return this.rpc.call(
      GATEWAY_TEMPLATES_RPC.create,
      {
        account_id: account.id,
        user_id: billedUser(account),
        name: dto.name,
        language: dto.language,
        category: dto.category ?? 'UTILITY',
        content: dto.content as SendContent,
      },
      UNAVAILABLE,
    );
  }

  async list(account: AuthenticatedAccount, q: ListGatewayTemplatesDto): Promise<ListGatewayTemplatesResult> {
    return this.rpc.call(
      GATEWAY_TEMPLATES_RPC.list,
      {
        account_id: account.id,
        app_id: await this.appOf(account),
        ...(q.cursor ? { cursor: q.cursor } : {}),
        limit: q.limit === undefined ? 50 : Number(q.limit),
      },
      UNAVAILABLE,
    );
  }

  async get(account: AuthenticatedAccount, name: string, q: GetGatewayTemplateDto): Promise<GetGatewayTemplateResult> {
    checkName(name);
    return this.rpc.call(
      GATEWAY_TEMPLATES_RPC.get,
      {
        account_id: account.id,
        app_id: await this.appOf(account),
        name,
        ...(q.language ? { language: q.language } : {}),
        ...(q.version ? { version: Number(q.version) } : {}),
      },
      UNAVAILABLE,
    );
  }

  async delete(account: AuthenticatedAccount, name: string, language: string | undefined): Promise<void> {
    checkName(name);
    await this.rpc.call(
      GATEWAY_TEMPLATES_RPC.delete,
      { account_id: account.id, name, ...(language ? { language } : {}) },
      UNAVAILABLE,
    );
  }

  /** The linked WhatsApp app, whose Meta templates are shown beside the bot templates. */
  private async appOf(account: AuthenticatedAccount): Promise<number | null> {
    return (await liveSendersOf(this.connections, account.id, ['whatsapp'])).whatsapp?.appId ?? null;
  }
}

function checkName(name: string): void {
  if (!isTemplateName(name)) {
    throw new ValidationProblem([{ field: 'name', message: 'name must be 1 to 512 lowercase letters, digits and _' }]);
  }
}
