import { Injectable } from '@nestjs/common';
import {
  FailoverStep,
  GatewaySendRequest,
  GatewaySendResult,
  GetMessageReportRequest,
  GetMessageReportResult,
  ListMessageReportsRequest,
  ListMessageReportsResult,
  ReadTargetRequest,
  ReadTargetResult,
  MessageReport,
} from '@app/contracts';
import { FieldError, UnprocessableProblem, ValidationProblem } from '@app/server';
import { IdempotencyService, KeyLease } from '../idempotency/idempotency.service';
import { createHash } from 'node:crypto';
import { AppEntity } from '../wa-apps/app.entity';
import { AttemptWrite, FailoverService, RouteAttempt } from './failover.service';
import { MessageEntity } from '../messages/message.entity';
import { MessagesRepository } from '../messages/messages.repository';
import { MessagesService } from './messages.service';
import { SendableTemplatesRepository } from './sendable-templates.repository';
import {
  chooseTemplate,
  renderTemplate,
  resolveTemplate,
  ResolvedTemplate,
  SendableTemplate,
  templateSendOf,
} from './template-message';

/** The gateway's field names for what the api's template rules name. */
function gatewayField(field: string): string {
  if (field === 'template.name') return 'template';
  if (field === 'template.language') return 'language';
  if (field === 'template.url') return 'media_url';
  if (field.startsWith('template.components')) return 'params';
  return field;
}

const refused = (errors: FieldError[]) =>
  new ValidationProblem(errors.map((e) => ({ field: gatewayField(e.field), message: e.message })));

/**
 * The template's content and category for these params: the gateway's field errors (`params`,
 * `media_url`) when they do not fit it.
 */
export function resolvedSend(
  template: SendableTemplate,
  params: string[] | undefined,
  mediaUrl: string | null | undefined,
): ResolvedTemplate {
  const request = templateSendOf(template, params ?? [], mediaUrl ?? undefined);
  if (Array.isArray(request)) throw refused(request);
  const resolved = resolveTemplate(template, request, { requested: false, supported: false });
  if (Array.isArray(resolved)) throw refused(resolved);
  return resolved;
}

/** One recipient of a campaign for `sendForCampaign`: its app and template resolved for the batch. */
export interface CampaignSend {
  campaignId: string;
  seq: number;
  userId: string;
  accountId: string;
  app: AppEntity;
  template: SendableTemplate;
  /** The recipient's channels in order (one: a single send; more: a failover route). */
  route: FailoverStep[];
  params: string[];
  mediaUrl: string | null;
  /** Written in the send's transaction once an attempt is accepted; must not throw. */
  alsoWrite: AttemptWrite;
}

/**
 * Sends of the gateway's accounts and their delivery report. A send is one of the linked WhatsApp
 * app's APPROVED templates, read from the api's own templates (so a template paused, rejected or
 * deleted a moment ago is refused at once), sent natively on WhatsApp and rendered for the bot
 * channels; it is accepted through the same `enqueue` as the api's sends (price, lane, tier, hold,
 * outbox, publish) and the same Idempotency-Key store, keyed by account.
 */
@Injectable()
export class GatewaySendsService {
  constructor(
    private readonly sends: MessagesService,
    private readonly messages: MessagesRepository,
    private readonly templates: SendableTemplatesRepository,
    private readonly idempotency: IdempotencyService,
    private readonly failover: FailoverService,
  ) {}

  async send(req: GatewaySendRequest): Promise<GatewaySendResult> {
    const given = req.idempotency ?? null;
    if (!given) return { id: await this.accept(req, null), status: 'QUEUED', replayed: false };
    // One key space per account, inside the user's (an account's keys never meet the api's).
    const scoped = { key: `gateway:${req.account_id}:${given.key}`, hash: given.hash };
    const answer = await this.idempotency.run(
      req.user_id,
      scoped.key,
      scoped.hash,
      async (lease) => ({ status: 202, body: { id: await this.accept(req, lease), status: 'QUEUED' as const } }),
      async () => {
        const id = await this.messages.findIdByIdempotencyKey(req.user_id, scoped.key, scoped.hash);
        return id ? { status: 202, body: { id, status: 'QUEUED' as const } } : null;
      },
    );
    return { ...answer.body, replayed: answer.replayed };
  }

  private async accept(req: GatewaySendRequest, idempotency: KeyLease | null): Promise<string> {
    const app = await this.sends.sendingApp(String(req.template_app_id), req.user_id);
    const template = await this.templateOf(app, req.template, req.language);
    return this.dispatch(
      { userId: req.user_id, accountId: req.account_id, app, template, idempotency, campaignId: null },
      req.route && req.route.length > 1 ? req.route : [req],
      req.params,
      req.media_url,
    );
  }

  /**
   * The APPROVED template of the app a send names (by name, and language when given): the
   * gateway's field errors (`template`, `language`) when there is none to send.
   */
  async templateOf(app: AppEntity, name: string, language: string | null | undefined): Promise<SendableTemplate> {
    const chosen = chooseTemplate(await this.templates.findTemplates(app.id, name), {
      name,
      language: language ?? undefined,
    });
    if (Array.isArray(chosen)) throw refused(chosen);
    return chosen;
  }

  /**
   * A campaign's send to one recipient, with its app and template resolved once for the runner's
   * batch: the same attempts, failover and enqueue as a gateway send, under the idempotency key
   * `campaign:<id>:<seq>` (a recipient is sent at most once), with `alsoWrite` marking the
   * recipient sent in the send's own transaction.
   */
  async sendForCampaign(send: CampaignSend): Promise<GatewaySendResult> {
    const key = `campaign:${send.campaignId}:${send.seq}`;
    const hash = createHash('sha256').update(`${send.campaignId}\n${send.seq}`).digest('hex');
    const base = {
      userId: send.userId,
      accountId: send.accountId,
      app: send.app,
      template: send.template,
      campaignId: send.campaignId,
      alsoWrite: send.alsoWrite,
    };
    const answer = await this.idempotency.run(
      send.userId,
      key,
      hash,
      async (lease) => ({
        status: 202,
        body: {
          id: await this.dispatch({ ...base, idempotency: lease }, send.route, send.params, send.mediaUrl),
          status: 'QUEUED' as const,
        },
      }),
      async () => {
        const id = await this.messages.findIdByIdempotencyKey(send.userId, key, hash);
        return id ? { status: 202, body: { id, status: 'QUEUED' as const } } : null;
      },
    );
    return { ...answer.body, replayed: answer.replayed };
  }

  /**
   * The one way a gateway or campaign send is accepted: the template rendered with its params,
   * then a single channel through `enqueue`, or a route of several through the failover.
   */
  private async dispatch(
    base: {
      userId: string;
      accountId: string;
      app: AppEntity;
      template: SendableTemplate;
      idempotency: KeyLease | null;
      campaignId: string | null;
      alsoWrite?: AttemptWrite;
    },
    route: FailoverStep[],
    params: string[] | undefined,
    mediaUrl: string | null | undefined,
  ): Promise<string> {
    const { app, template: chosen } = base;
    const resolved = resolvedSend(chosen, params, mediaUrl);
    const attempt = (step: FailoverStep): RouteAttempt => {
      const bot = step.channel !== 'whatsapp';
      if (bot && !step.sender) {
        throw new UnprocessableProblem(
          'not-connected',
          'Channel not connected',
          `No ${step.channel} bot sends for this account.`,
        );
      }
      const content = bot
        ? { ...resolved.content, rendered: renderTemplate(chosen, resolved.content) }
        : resolved.content;
      return {
        channel: step.channel,
        appId: bot ? null : app.id,
        sender: bot
          ? { connection_id: step.sender!.connection_id, credential: step.sender!.credential }
          : { connection_id: app.phoneNumberId as string, waba_id: app.wabaId },
        recipient: step.to,
        prepared: { category: resolved.category, content: { template: content }, templateId: chosen.id },
        ...(base.campaignId ? { campaignId: base.campaignId } : {}),
      };
    };
    if (route.length > 1) {
      return this.failover.accept(
        { userId: base.userId, accountId: base.accountId, idempotency: base.idempotency, alsoWrite: base.alsoWrite },
        route.map(attempt),
      );
    }
    const only = attempt(route[0]);
    const alsoWrite = base.alsoWrite;
    return this.sends.enqueue({
      userId: base.userId,
      accountId: base.accountId,
      channel: only.channel,
      app: only.appId === null ? null : app,
      sender: only.sender,
      recipient: only.recipient,
      kind: 'TEMPLATE',
      prepared: only.prepared,
      idempotency: base.idempotency,
      alsoWrite: alsoWrite && ((em, id) => alsoWrite(em, id, only)),
      campaignId: base.campaignId,
    });
  }

  async get(req: GetMessageReportRequest): Promise<GetMessageReportResult> {
    const id = typeof req.id === 'string' && req.id.length <= 64 ? await this.failover.messageIdOf(req.id) : null;
    const message = id ? await this.messages.findById(id) : null;
    if (!message || message.accountId === null) return { found: false, other_account: false };
    if (message.accountId !== req.account_id) return { found: false, other_account: true };
    return { found: true, report: await this.reportOf(message) };
  }

  /** A gateway message's owner and status, for a tracking pixel open (the token proved the id). */
  async readTarget(req: ReadTargetRequest): Promise<ReadTargetResult> {
    const message = typeof req.id === 'string' && req.id.length <= 64 ? await this.messages.findById(req.id) : null;
    if (!message || message.accountId === null) return { found: false };
    return {
      found: true,
      message_id: message.id,
      channel: message.channel,
      status: message.status,
      app_id: message.appId,
      user_id: message.userId,
      recipient: message.recipient,
      category: message.category,
      campaign_id: message.campaignId,
    };
  }

  /** The one report of a message, with its attempts when it was sent over a failover route. */
  private async reportOf(message: MessageEntity): Promise<MessageReport> {
    return this.failover.withAttempts(await this.sends.report(message), (m) => this.sends.report(m));
  }

  async list(req: ListMessageReportsRequest): Promise<ListMessageReportsResult> {
    const limit = Math.min(Math.max(1, Math.floor(req.limit) || 50), 100);
    const rows = await this.messages.listForAccount(
      req.account_id,
      {
        channel: req.channel,
        status: req.status,
        from: req.from === undefined ? undefined : new Date(req.from * 1000),
        to: req.to === undefined ? undefined : new Date(req.to * 1000),
      },
      req.cursor ?? null,
      limit + 1,
    );
    const page = rows.slice(0, limit);
    return {
      data: await Promise.all(page.map((m) => this.reportOf(m))),
      next_cursor: rows.length > limit ? page[page.length - 1].id : null,
    };
  }
}
