import { Injectable, Logger } from '@nestjs/common';
import {
  ChannelRpcError,
  DeleteTemplateRequest,
  ListTemplatesReply,
  ListTemplatesRequest,
  SubmitTemplateReply,
  SubmitTemplateRequest,
  UpdateTemplateReply,
  UpdateTemplateRequest,
  WHATSAPP_RPC,
} from '@app/contracts';
import { RpcClient } from '@app/messaging';
import { ServiceUnavailableProblem } from '@app/server';
import { ApiConfig } from '../config';

/** The channel understood the request and refused it (invalid template, unknown id, ...). */
export class ChannelRejectedError extends Error {
  constructor(readonly error: ChannelRpcError) {
    super(error.message);
    this.name = 'ChannelRejectedError';
  }
}

type Reply<T> = T | { error: ChannelRpcError };

function isErrorReply(reply: unknown): reply is { error: ChannelRpcError } {
  return (
    typeof reply === 'object' && reply !== null && 'error' in reply && Boolean((reply as { error: unknown }).error)
  );
}

/**
 * Templates on the WhatsApp channel, through the gateway's connector over NATS request/reply.
 * No answer, a timeout or a channel outage is a 503 problem (the caller has changed nothing yet);
 * a refusal is a ChannelRejectedError for the caller to map.
 */
@Injectable()
export class WhatsAppTemplatesChannel {
  private readonly logger = new Logger(WhatsAppTemplatesChannel.name);

  constructor(
    private readonly rpc: RpcClient,
    private readonly config: ApiConfig,
  ) {}

  submit(req: SubmitTemplateRequest): Promise<SubmitTemplateReply> {
    return this.call(WHATSAPP_RPC.submitTemplate, req);
  }

  update(req: UpdateTemplateRequest): Promise<UpdateTemplateReply> {
    return this.call(WHATSAPP_RPC.updateTemplate, req);
  }

  delete(req: DeleteTemplateRequest): Promise<unknown> {
    return this.call(WHATSAPP_RPC.deleteTemplate, req);
  }

  list(req: ListTemplatesRequest): Promise<ListTemplatesReply> {
    return this.call(WHATSAPP_RPC.listTemplates, req);
  }

  private async call<R>(pattern: string, data: unknown): Promise<R> {
    let reply: Reply<R>;
    try {
      reply = await this.rpc.send<Reply<R>>(pattern, data, this.config.CHANNEL_RPC_TIMEOUT_MS);
    } catch (err) {
      // Nobody answered, it timed out, or the gateway failed while handling it: in every case
      // the api cannot know the channel's answer, so it changes nothing and says so.
      this.logger.warn({ err, pattern }, 'WhatsApp channel call failed');
      throw new ServiceUnavailableProblem(
        'The WhatsApp channel could not be reached; nothing was changed. Retry later.',
      );
    }
    if (isErrorReply(reply)) {
      if (reply.error.kind === 'unavailable') {
        throw new ServiceUnavailableProblem(`The WhatsApp channel is unavailable: ${reply.error.message}`);
      }
      throw new ChannelRejectedError(reply.error);
    }
    return reply;
  }
}
