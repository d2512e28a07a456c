import { Injectable, Logger } from '@nestjs/common';
import {
  ChannelRpcError,
  ChannelRpcReply,
  DeleteTemplateReply,
  DeleteTemplateRequest,
  ListTemplatesReply,
  ListTemplatesRequest,
  SubmitTemplateReply,
  SubmitTemplateRequest,
  TemplateSubmission,
  UpdateTemplateReply,
  UpdateTemplateRequest,
  WhatsAppConnection,
} from '@app/contracts';
import { WhatsAppApiError, WhatsAppConnector } from '@app/channels';

/** A request that does not have the contract's shape: the caller's bug, answered as a refusal. */
class InvalidTemplateRequest extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * Template management on the channel for the api (which owns templates): submit, edit, delete and
 * list through the WhatsApp connector. Refusals and outages come back as `{ error }` data, so the
 * caller can tell "the channel said no" (rejected) from "try later" (unavailable).
 */
@Injectable()
export class TemplatesService {
  private readonly logger = new Logger('TemplateRpc');

  constructor(private readonly connector: WhatsAppConnector) {}

  submit(req: SubmitTemplateRequest): Promise<ChannelRpcReply<SubmitTemplateReply>> {
    return this.run('submit', () => this.connector.submitTemplate(connection(req), submission(req?.template)));
  }

  update(req: UpdateTemplateRequest): Promise<ChannelRpcReply<UpdateTemplateReply>> {
    return this.run('update', () => {
      connection(req);
      if (!nonEmpty(req.wa_id)) throw new InvalidTemplateRequest('wa_id is required');
      return this.connector.updateTemplate(req.wa_id, submission(req.template));
    });
  }

  delete(req: DeleteTemplateRequest): Promise<ChannelRpcReply<DeleteTemplateReply>> {
    return this.run('delete', async () => {
      const c = connection(req);
      if (!nonEmpty(req.wa_id) || !nonEmpty(req.name)) throw new InvalidTemplateRequest('wa_id and name are required');
      await this.connector.deleteTemplate(c, req.name, req.wa_id);
      return { deleted: true as const };
    });
  }

  list(req: ListTemplatesRequest): Promise<ChannelRpcReply<ListTemplatesReply>> {
    return this.run('list', async () => ({ templates: await this.connector.listTemplates(connection(req)) }));
  }

  private async run<T>(op: string, call: () => Promise<T>): Promise<ChannelRpcReply<T>> {
    try {
      return await call();
    } catch (err) {
      const error = toRpcError(err);
      if (error.kind === 'unavailable')
        this.logger.warn({ op, code: error.code }, `template ${op}: channel unavailable`);
      if (!(err instanceof WhatsAppApiError) && !(err instanceof InvalidTemplateRequest)) {
        this.logger.error({ err, op }, `template ${op} failed unexpectedly`);
      }
      return { error };
    }
  }
}

function toRpcError(err: unknown): ChannelRpcError {
  if (err instanceof WhatsAppApiError) return { kind: err.kind, code: err.code, message: err.message };
  if (err instanceof InvalidTemplateRequest) return { kind: 'rejected', code: 'invalid_request', message: err.message };
  return { kind: 'unavailable', code: 'internal', message: 'The template could not be processed.' };
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
