import { Controller, Logger } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CompleteSignupReply, CompleteSignupRequest, RpcReply, WHATSAPP_RPC } from '@app/contracts';
import { WhatsAppApiError, WhatsAppSignup } from '@app/channels';
import { toRpcProblem } from '../templates/templates.service';

const channelId = (v: unknown): v is string => typeof v === 'string' && /^[0-9]{1,32}$/.test(v);

/**
 * Completes an embedded signup for the api (which records the number): proves the claim against
 * Graph, subscribes the app to the WABA and registers the number. Refusals come back as data.
 */
@Controller()
export class SignupController {
  private readonly logger = new Logger('SignupRpc');

  constructor(private readonly signup: WhatsAppSignup) {}

  @MessagePattern(WHATSAPP_RPC.completeSignup)
  async complete(@Payload() req: CompleteSignupRequest): Promise<RpcReply<CompleteSignupReply>> {
    if (typeof req?.code !== 'string' || !req.code || !channelId(req.waba_id) || !channelId(req.phone_number_id)) {
      return {
        problem: {
          status: 400,
          slug: 'invalid-request',
          title: 'Invalid request',
          code: 'invalid_request',
          detail: 'code, waba_id and phone_number_id are required',
        },
      };
    }
    try {
      return {
        result: await this.signup.complete({
          code: req.code,
          waba_id: req.waba_id,
          phone_number_id: req.phone_number_id,
        }),
      };
    } catch (err) {
      const problem = toRpcProblem(err);
      // Never the code or the business token: ids and the outcome are enough to follow a signup.
      if (err instanceof WhatsAppApiError) {
        this.logger.warn(
          { wabaId: req.waba_id, code: problem.code, status: problem.status },
          'embedded signup not completed',
        );
      } else {
        this.logger.error({ err, wabaId: req.waba_id }, 'embedded signup failed unexpectedly');
      }
      return { problem };
    }
  }
}
