import { Injectable } from '@nestjs/common';
import { APPS_RPC, ChannelFlowPage, DescribeAppReply, FLOW_PAGE_MAX } from '@app/contracts';
import { WhatsAppApiError, WhatsAppConnector } from '@app/channels';
import { RpcClient, RpcProblemError } from '@app/messaging';
import { NotFoundProblem, UnprocessableProblem, ValidationProblem } from '@app/server';
import { AuthenticatedAccount } from '../accounts/authenticated-account';
import { ConnectionsRepository } from '../connections/connections.repository';
import { liveSendersOf } from '../messages/send-route';
import { channelProblem } from '../templates/templates.service';
import { ListWhatsAppFlowsDto } from './dto/whatsapp-flow.dto';

const APP_RPC_TIMEOUT_MS = 5_000;
const FLOW_REFUSED = { slug: 'flow-rejected-by-channel', title: 'Flow refused by the channel' };
const FLOW_ID = /^\d{1,32}$/;

/**
 * `/v1/flows` (docs/gateway.md#whatsapp-flows): the Flows of the account's linked WhatsApp app,
 * listed and published on the channel through the app's business account. The channel's refusals
 * are 400 `flow-rejected-by-channel` (with its code), its outages 503, as template management's.
 */
@Injectable()
export class WhatsAppFlowsService {
  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly rpc: RpcClient,
    private readonly connector: WhatsAppConnector,
  ) {}

  async list(account: AuthenticatedAccount, q: ListWhatsAppFlowsDto): Promise<ChannelFlowPage> {
    const wabaId = await this.wabaOf(account);
    const limit = q.limit === undefined ? 50 : Math.min(Number(q.limit), FLOW_PAGE_MAX);
    return this.onChannel(() => this.connector.listFlows(wabaId, { limit, ...(q.cursor ? { after: q.cursor } : {}) }));
  }

  async publish(account: AuthenticatedAccount, flowId: string): Promise<{ id: string; status: 'PUBLISHED' }> {
    if (!FLOW_ID.test(flowId)) throw new ValidationProblem([{ field: 'id', message: 'id must be a Flow id (digits)' }]);
    const wabaId = await this.wabaOf(account);
    // One platform token reaches every business: only a Flow of the account's own is touched; one
    // the channel does not show (unknown, or not visible) is not found either.
    const owner = await this.onChannel(() =>
      this.connector
        .flowWaba(flowId)
        .catch((err: unknown) =>
          err instanceof WhatsAppApiError && err.kind === 'rejected' ? null : Promise.reject(err),
        ),
    );
    if (owner !== wabaId) throw new NotFoundProblem('flow');
    await this.onChannel(() => this.connector.publishFlow(flowId));
    return { id: flowId, status: 'PUBLISHED' };
  }

  /** The linked app's business account: 422 without a linked app, or one with no business account. */
  private async wabaOf(account: AuthenticatedAccount): Promise<string> {
    const appId = (await liveSendersOf(this.connections, account.id, ['whatsapp'])).whatsapp?.appId ?? null;
    const app: DescribeAppReply | null = appId
      ? await this.rpc.call(
          APPS_RPC.describe,
          { app_id: appId },
          { timeoutMs: APP_RPC_TIMEOUT_MS, unavailable: 'The apps cannot be read right now; retry later.' },
        )
      : null;
    if (!app?.found || !app.waba_id) {
      throw new UnprocessableProblem(
        'no-whatsapp-app',
        'No WhatsApp app',
        'Flows come from a linked WhatsApp app with a business account: link one with POST /v1/connections {"channel":"whatsapp","app_id":…}.',
      );
    }
    return app.waba_id;
  }

  private async onChannel<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      // The channel's error code is told to the caller, as a member of the problem.
      const problem = channelProblem(err, FLOW_REFUSED, 'The Flow could not be processed.');
      throw new RpcProblemError('whatsapp.flows', {
        ...problem,
        ...(problem.code ? { extensions: { code: problem.code } } : {}),
      });
    }
  }
}
