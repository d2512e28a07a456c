import { Injectable } from '@nestjs/common';
import {
  CompleteSignupReply,
  CompleteSignupRequest,
  DeleteTemplateReply,
  DeleteTemplateRequest,
  ListTemplatesReply,
  ListTemplatesRequest,
  NumbersHealthReply,
  NumbersHealthRequest,
  RpcRequest,
  RpcResult,
  RpcSubject,
  SubmitTemplateReply,
  SubmitTemplateRequest,
  UpdateTemplateReply,
  UpdateTemplateRequest,
  WHATSAPP_RPC,
} from '@app/contracts';
import { RpcClient, RpcProblemError } from '@app/messaging';
import { ApiConfig } from '../config';

/** The channel understood the request and refused it (invalid template, unknown id, ...). */
export class ChannelRejectedError extends Error {
  constructor(readonly error: { code?: string; message: string }) {
    super(error.message);
    this.name = 'ChannelRejectedError';
  }
}

/**
 * Templates on the WhatsApp channel, through the gateway's connector over request/reply.
 * No answer, a timeout or a channel outage is a 503 problem (the caller has changed nothing yet);
 * a refusal is a ChannelRejectedError for the caller to map.
 */
@Injectable()
export class WhatsAppTemplatesChannel {
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

  delete(req: DeleteTemplateRequest): Promise<DeleteTemplateReply> {
    return this.call(WHATSAPP_RPC.deleteTemplate, req);
  }

  list(req: ListTemplatesRequest): Promise<ListTemplatesReply> {
    return this.call(WHATSAPP_RPC.listTemplates, req);
  }

  /** Embedded signup: the channel proves the claim, subscribes the app and registers the number. */
  completeSignup(req: CompleteSignupRequest): Promise<CompleteSignupReply> {
    return this.call(WHATSAPP_RPC.completeSignup, req);
  }

  /** Quality rating, messaging limit tier and status of numbers (each may come back with its error instead). */
  numbersHealth(req: NumbersHealthRequest): Promise<NumbersHealthReply> {
    return this.call(WHATSAPP_RPC.numbersHealth, req);
  }

  private call<S extends RpcSubject>(subject: S, req: RpcRequest<S>): Promise<RpcResult<S>> {
    return this.rpc
      .call(subject, req, {
        timeoutMs: this.config.CHANNEL_RPC_TIMEOUT_MS,
        unavailable: 'The WhatsApp channel could not be reached; nothing was changed. Retry later.',
      })
      .catch((err: unknown) => {
        // A 4xx is the channel's own refusal, which the templates service words for the api's client.
        if (err instanceof RpcProblemError && err.problem.status < 500) {
          throw new ChannelRejectedError({ code: err.problem.code, message: err.problem.detail ?? err.problem.title });
        }
        throw err;
      });
  }
}
