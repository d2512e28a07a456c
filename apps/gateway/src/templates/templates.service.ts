import { Injectable, Logger } from '@nestjs/common';
import {
  DeleteTemplateReply,
  DeleteTemplateRequest,
  ListTemplatesReply,
  ListTemplatesRequest,
  NUMBERS_HEALTH_BATCH,
  NumberHealth,
  NumbersHealthReply,
  NumbersHealthRequest,
  RpcProblem,
  RpcReply,
  SubmitTemplateReply,
  SubmitTemplateRequest,
  TemplateSubmission,
  UpdateTemplateReply,
  UpdateTemplateRequest,
  WhatsAppConnection,
} from '@app/contracts';
import { WhatsAppApiError, WhatsAppConnector } from '@app/channels';
import { rpcAnswer } from '@app/messaging';

/** A request that does not have the contract's shape: the caller's bug, answered as a refusal. */
class InvalidTemplateRequest extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * Template management on the channel for the api (which owns templates): submit, edit, delete and
 * list through the WhatsApp connector. Refusals and outages come back as `{ problem }` data, so the
 * caller can tell "the channel said no" (400) from "try later" (503).
 */
@Injectable()
export class ChannelTemplatesService {
  private readonly logger = new Logger('TemplateRpc');

  constructor(private readonly connector: WhatsAppConnector) {}

  submit(req: SubmitTemplateRequest): Promise<RpcReply<SubmitTemplateReply>> {
    return this.run('submit', () => this.connector.submitTemplate(connection(req), submission(req?.template)));
  }

  update(req: UpdateTemplateRequest): Promise<RpcReply<UpdateTemplateReply>> {
    return this.run('update', () => {
      connection(req);
      if (!nonEmpty(req.wa_id)) throw new InvalidTemplateRequest('wa_id is required');
      return this.connector.updateTemplate(req.wa_id, submission(req.template));
    });
  }

  delete(req: DeleteTemplateRequest): Promise<RpcReply<DeleteTemplateReply>> {
    return this.run('delete', async () => {
      const c = connection(req);
      if (!nonEmpty(req.wa_id) || !nonEmpty(req.name)) throw new InvalidTemplateRequest('wa_id and name are required');
      await this.connector.deleteTemplate(c, req.name, req.wa_id);
      return { deleted: true as const };
    });
  }

  list(req: ListTemplatesRequest): Promise<RpcReply<ListTemplatesReply>> {
    return this.run('list', async () => ({ templates: await this.connector.listTemplates(connection(req)) }));
  }

  /**
   * The state of each number (the api's account signals pull). A number the channel could not
   * describe is answered with its error, so one bad number never hides the others.
   */
  numbersHealth(req: NumbersHealthRequest): Promise<RpcReply<NumbersHealthReply>> {
    return this.run('numbers health', async () => {
      const list = Array.isArray(req?.numbers) ? req.numbers : null;
      if (!list || list.length > NUMBERS_HEALTH_BATCH) {
        throw new InvalidTemplateRequest(`numbers must be a list of at most ${NUMBERS_HEALTH_BATCH} connections`);
      }
      const numbers = await Promise.all(
        list.map(async (c): Promise<NumberHealth> => {
          const id = isObject(c) && nonEmpty(c.phone_number_id) ? c.phone_number_id : '';
          const waba = isObject(c) && nonEmpty(c.waba_id) ? c.waba_id : '';
          if (!id) return { phone_number_id: id, waba_id: waba, error: 'invalid_request' };
          try {
            return { phone_number_id: id, waba_id: waba, ...(await this.connector.numberHealth(id)) };
          } catch (err) {
            if (!(err instanceof WhatsAppApiError)) throw err;
            return { phone_number_id: id, waba_id: waba, error: err.code || err.kind };
          }
        }),
      );
      return { numbers };
    });
  }

  private run<T>(op: string, call: () => Promise<T>): Promise<RpcReply<T>> {
    return rpcAnswer(call, (err) => {
      const problem = toRpcProblem(err);
      if (problem.status === 503) this.logger.warn({ op, code: problem.code }, `template ${op}: channel unavailable`);
      if (!(err instanceof WhatsAppApiError) && !(err instanceof InvalidTemplateRequest)) {
        this.logger.error({ err, op }, `template ${op} failed unexpectedly`);
      }
      return problem;
    });
  }
}

/** What a refusal by the channel is called, per thing managed there (templates, Flows). */
export interface ChannelRefusal {
  slug: string;
  title: string;
}

const TEMPLATE_REFUSED: ChannelRefusal = {
  slug: 'template-rejected-by-channel',
  title: 'Template refused by the channel',
};

const refused = (refusal: ChannelRefusal, code: string | undefined, message: string): RpcProblem => ({
  status: 400,
  ...refusal,
  detail: message,
  ...(code ? { code } : {}),
});

const unavailable = (code: string | undefined, message: string): RpcProblem => ({
  status: 503,
  slug: 'service-unavailable',
  title: 'Service unavailable',
  detail: `The WhatsApp channel is unavailable: ${message}`,
  ...(code ? { code } : {}),
});

/** "The channel said no" is a 400 for the api to pass on; "try later" a 503. */
export function toRpcProblem(err: unknown): RpcProblem {
  if (err instanceof InvalidTemplateRequest) return refused(TEMPLATE_REFUSED, 'invalid_request', err.message);
  return channelProblem(err, TEMPLATE_REFUSED, 'The template could not be processed.');
}

/** A channel call's failure as a problem: its refusal a 400 named by `refusal`, anything else a 503. */
export function channelProblem(err: unknown, refusal: ChannelRefusal, internal: string): RpcProblem {
  if (err instanceof WhatsAppApiError) {
    return err.kind === 'rejected' ? refused(refusal, err.code, err.message) : unavailable(err.code, err.message);
  }
  return unavailable('internal', internal);
}

function connection(req: { connection?: unknown } | undefined): WhatsAppConnection {
  const c = req?.connection;
  if (!isObject(c) || !nonEmpty(c.waba_id)) throw new InvalidTemplateRequest('connection.waba_id is required');
  return { waba_id: c.waba_id, phone_number_id: typeof c.phone_number_id === 'string' ? c.phone_number_id : '' };
}

function submission(t: unknown): TemplateSubmission {
  if (!isObject(t)) throw new InvalidTemplateRequest('template is required');
  if (!nonEmpty(t.name) || !nonEmpty(t.language) || !nonEmpty(t.category)) {
    throw new InvalidTemplateRequest('template name, language and category are required');
  }
  if (!isObject(t.body) || !nonEmpty(t.body.text)) throw new InvalidTemplateRequest('template body.text is required');
  return { ...(t as unknown as TemplateSubmission), type: (t.type as TemplateSubmission['type']) ?? 'TEXT' };
}
