import { Injectable } from '@nestjs/common';
import {
  contentErrors,
  FailoverStep,
  GatewaySendRequest,
  GatewaySendResult,
  GetMessageReportRequest,
  GetMessageReportResult,
  ListMessageReportsRequest,
  ListMessageReportsResult,
  ReadTargetRequest,
  ReadTargetResult,
  MessageContact,
  MessageReport,
  isWhatsAppUserId,
  MessageKind,
  outboundOfContent,
  renderedAs,
  SendContent,
  sentContent,
} from '@app/contracts';
import { UnprocessableProblem, ValidationProblem } from '@app/server';
import { IdempotencyService, KeyLease } from '../idempotency/idempotency.service';
import { createHash } from 'node:crypto';
import { AppEntity } from '../wa-apps/app.entity';
import { AttemptWrite, FailoverService, RouteAttempt } from './failover.service';
import { MessageEntity } from '../messages/message.entity';
import { MessagesRepository } from '../messages/messages.repository';
import { MessagesService, PreparedSend } from './messages.service';
import { SendableTemplatesRepository } from './sendable-templates.repository';
import { ConversationsService } from '../conversations/conversations.service';
import { windowClosed } from './window-closed';
import { BotTemplateRow } from '../templates/bot-templates.repository';
import { botTemplateSend, refused, TemplateChoice, TemplateSources } from './template-source';
import {
  renderTemplate,
  resolveTemplate,
  ResolvedTemplate,
  SendableTemplate,
  templateSendOf,
} from './template-message';

/**
 * The template's content and category for these params: the gateway's field errors (`params`,
 * `media_url`) when they do not fit it.
 */
export function resolvedSend(
  template: SendableTemplate,
  params: string[] | undefined,
  mediaUrl: string | null | undefined,
  buttons: TemplateButtonInputs = {},
): ResolvedTemplate {
  const request = templateSendOf(template, params ?? [], mediaUrl ?? undefined, buttons.couponCode);
  if (Array.isArray(request)) throw refused(request);
  const resolved = resolveTemplate(template, request, { requested: false, supported: false }, buttons.flowToken);
  if (Array.isArray(resolved)) throw refused(resolved);
  return resolved;
}

/** A gateway template send's button inputs: the COPY_CODE button's coupon, the FLOW button's token. */
export interface TemplateButtonInputs {
  couponCode?: string | null;
  flowToken?: string | null;
}

/** One recipient of a campaign for `sendForCampaign`: its app and template resolved for the batch. */
export interface CampaignSend {
  campaignId: string;
  seq: number;
  userId: string;
  accountId: string;
  /** The WhatsApp app and its template (null for a campaign without one: a bot template alone). */
  app: AppEntity | null;
  template: SendableTemplate | null;
  /** The account's bot template of the name, sent on Telegram and MAX instead of the rendered `template`. */
  bot?: BotTemplateRow | null;
  /**
   * A content campaign's content, sent as it is instead of a template: as `POST /v1/messages` sends
   * one (WhatsApp left out of the route while its window is closed; 422 window-closed with no other).
   */
  content?: SendContent | null;
  /** The recipient's channels in order (one: a single send; more: a failover route). */
  route: FailoverStep[];
  params: string[];
  mediaUrl: string | null;
  /** Written in the send's transaction once an attempt is accepted; must not throw. */
  alsoWrite: AttemptWrite;
  /** The recipient's contact, kept on the message. */
  contact?: MessageContact | null;
}

/** What accepting a send's attempts needs besides them: who sends, and under which key. */
interface AcceptBase {
  userId: string;
  accountId: string;
  /** The WhatsApp app of the WhatsApp attempts (null when the send has none). */
  app: AppEntity | null;
  idempotency: KeyLease | null;
  campaignId: string | null;
  alsoWrite?: AttemptWrite;
  /** The contact the send is to: kept on each attempt's message. */
  contact?: MessageContact | null;
  /**
   * What the send shows in its recipient's conversation, carried on each attempt's events: set for
   * the messages the gateway does not see made (a campaign's, a failover route's attempts).
   */
  shown?: Pick<Parameters<typeof sentContent>[0], 'content' | 'template'> | null;
}

/** A content campaign's send as the content path reads a gateway send (who sends, from which app, to whom). */
const campaignContentRequest = (send: CampaignSend): GatewaySendRequest => ({
  account_id: send.accountId,
  user_id: send.userId,
  channel: send.route[0].channel,
  to: send.route[0].to,
  template_app_id: send.app?.id ?? null,
  params: [],
  ...(send.contact ? { contact: send.contact } : {}),
});

const notConnected = (channel: string) =>
  new UnprocessableProblem('not-connected', 'Channel not connected', `No ${channel} sender for this account.`);

/**
 * Sends of the gateway's accounts and their delivery report. A template send is one of the linked
 * WhatsApp app's APPROVED templates, read from the api's own templates (so a template paused,
 * rejected or deleted a moment ago is refused at once), sent natively on WhatsApp and rendered for
 * the bot channels; a content send is a free-form service message (text or media by URL), on
 * WhatsApp only inside the customer-service window. Both are accepted through the same `enqueue`
 * as the api's sends (price, lane, tier, hold, outbox, publish) and the same Idempotency-Key store,
 * keyed by account.
 */
@Injectable()
export class GatewaySendsService {
  constructor(
    private readonly sends: MessagesService,
    private readonly messages: MessagesRepository,
    private readonly templates: SendableTemplatesRepository,
    private readonly idempotency: IdempotencyService,
    private readonly failover: FailoverService,
    private readonly windows: ConversationsService,
    private readonly sources: TemplateSources,
  ) {}

  async send(req: GatewaySendRequest): Promise<GatewaySendResult> {
    const given = req.idempotency ?? null;
    if (!given) return { ...(await this.accept(req, null)), status: 'QUEUED', replayed: false };
    // One key space per account, inside the user's (an account's keys never meet the api's).
    const scoped = { key: `gateway:${req.account_id}:${given.key}`, hash: given.hash };
    const answer = await this.idempotency.run(
      req.user_id,
      scoped.key,
      scoped.hash,
      async (lease) => ({ status: 202, body: { ...(await this.accept(req, lease)), status: 'QUEUED' as const } }),
      async () => {
        const id = await this.messages.findIdByIdempotencyKey(req.user_id, scoped.key, scoped.hash);
        return id ? { status: 202, body: { id, status: 'QUEUED' as const } } : null;
      },
    );
    return { ...answer.body, replayed: answer.replayed };
  }

  /** The accepted message's id; with the flow token its template's FLOW button carries, when it does. */
  private async accept(
    req: GatewaySendRequest,
    idempotency: KeyLease | null,
  ): Promise<{ id: string; flow_token?: string }> {
    const route = req.route && req.route.length > 1 ? req.route : [req];
    const contact = req.contact ?? null;
    if (req.content !== undefined) return { id: await this.acceptContent(req, req.content, route, idempotency) };
    if (req.template === undefined) {
      throw new ValidationProblem([{ field: 'template', message: 'template or content is required' }]);
    }
    const choice = await this.sources.choose({
      accountId: req.account_id,
      userId: req.user_id,
      appId: req.template_app_id,
      name: req.template,
      language: req.language,
      channels: route.map((step) => step.channel),
    });
    // The token rides only where the template has a FLOW button and the route reaches WhatsApp.
    const flowToken =
      req.flow_token &&
      choice.meta?.buttons.some((b) => b.type === 'FLOW') &&
      route.some((step) => step.channel === 'whatsapp')
        ? req.flow_token
        : null;
    // A route's later attempts are made here: their threads show the template as asked.
    const shown =
      route.length > 1
        ? {
            content: null,
            template: {
              name: req.template,
              language: req.language ?? null,
              params: req.params ?? [],
              media_url: req.media_url ?? null,
            },
          }
        : null;
    const id = await this.dispatch(
      { userId: req.user_id, accountId: req.account_id, idempotency, campaignId: null, contact, shown, ...choice },
      route,
      req.params,
      req.media_url,
      { couponCode: req.coupon_code ?? null, flowToken },
    );
    return flowToken ? { id, flow_token: flowToken } : { id };
  }

  /**
   * A free-form (content) send: a SERVICE message on every channel of its route, each channel's
   * limits checked first. On WhatsApp only inside the 24-hour window: with it closed, WhatsApp is
   * left out of a route of several channels, and a send with no other channel is 422
   * window-closed naming the app's approved templates; both before anything is held.
   */
  private async acceptContent(
    req: GatewaySendRequest,
    content: SendContent,
    route: FailoverStep[],
    idempotency: KeyLease | null,
    campaign: Pick<AcceptBase, 'campaignId' | 'alsoWrite'> = { campaignId: null },
    shown = route.length > 1 || campaign.campaignId !== null,
  ): Promise<string> {
    const errors = route.flatMap((step) => contentErrors(step.channel, content));
    if (errors.length) {
      throw new ValidationProblem(errors.filter((e, i) => errors.findIndex((o) => o.field === e.field) === i));
    }
    const onWhatsApp = route.find((step) => step.channel === 'whatsapp');
    let app: AppEntity | null = null;
    let steps = route;
    if (onWhatsApp) {
      if (req.template_app_id === null) throw notConnected('whatsapp');
      app = await this.sends.sendingApp(String(req.template_app_id), req.user_id);
      if (!(await this.windows.isOpen(app.id, onWhatsApp.to))) {
        steps = route.filter((step) => step.channel !== 'whatsapp');
        if (!steps.length) throw await windowClosed(this.templates, app.id);
      }
    }
    const out = outboundOfContent(content);
    const prepared: PreparedSend = { category: out.category, content: out.content, templateId: null };
    const base = {
      userId: req.user_id,
      accountId: req.account_id,
      app,
      idempotency,
      ...campaign,
      contact: req.contact ?? null,
      shown: shown ? { content, template: null } : null,
    };
    return this.acceptAttempts(
      base,
      steps.map((step) =>
        this.attemptOn(step, base, out.kind, { ...prepared, renderedAs: renderedAs(step.channel, content) }),
      ),
    );
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
      meta: send.template,
      // The campaign's template name as a bot template, sent instead on Telegram and MAX.
      bot:
        send.bot !== undefined || !send.template
          ? (send.bot ?? null)
          : await this.sources.botFor(
              send.accountId,
              send.template.name,
              send.template.language,
              send.route.map((step) => step.channel),
            ),
      campaignId: send.campaignId,
      alsoWrite: send.alsoWrite,
      contact: send.contact ?? null,
      shown: {
        content: null,
        template: {
          name: send.template?.name ?? send.bot?.name ?? '',
          language: send.template?.language ?? send.bot?.language ?? null,
          params: send.params,
          media_url: send.mediaUrl,
        },
      },
    };
    const answer = await this.idempotency.run(
      send.userId,
      key,
      hash,
      async (lease) => ({
        status: 202,
        body: {
          id: send.content
            ? await this.acceptContent(campaignContentRequest(send), send.content, send.route, lease, {
                campaignId: send.campaignId,
                alsoWrite: send.alsoWrite,
              })
            : await this.dispatch({ ...base, idempotency: lease }, send.route, send.params, send.mediaUrl),
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
   * The one way a gateway or campaign template send is accepted: on Telegram and MAX the bot
   * template filled with its params where the account has one, otherwise the Meta template
   * rendered with them (natively on WhatsApp, drawn for the bot channels); then its attempts accepted.
   */
  private async dispatch(
    base: AcceptBase & TemplateChoice,
    route: FailoverStep[],
    params: string[] | undefined,
    mediaUrl: string | null | undefined,
    buttons: TemplateButtonInputs = {},
  ): Promise<string> {
    const chosen = base.meta;
    const needsMeta = route.some((step) => step.channel === 'whatsapp' || !base.bot);
    const resolved = chosen && needsMeta ? resolvedSend(chosen, params, mediaUrl, buttons) : null;
    const attempts = route.map((step) => {
      const bot = step.channel !== 'whatsapp';
      if (bot && base.bot) {
        const filled = botTemplateSend(base.bot, step.channel, params);
        return this.attemptOn(step, base, filled.kind, filled.prepared);
      }
      if (!chosen || !resolved) throw refused([{ field: 'template.name', message: 'no template to send' }]);
      if (!bot && isWhatsAppUserId(step.to) && resolved.category.startsWith('AUTHENTICATION')) {
        throw new UnprocessableProblem(
          'template-not-for-user-id',
          'Template cannot reach this recipient',
          'WhatsApp does not send authentication templates to a business-scoped user id: send to the phone number.',
        );
      }
      const content = bot
        ? { ...resolved.content, rendered: renderTemplate(chosen, resolved.content) }
        : resolved.content;
      const prepared = { category: resolved.category, content: { template: content }, templateId: chosen.id };
      return this.attemptOn(step, base, 'TEMPLATE', prepared);
    });
    return this.acceptAttempts(base, attempts);
  }

  /** One channel of a send: its sender (the app's number on WhatsApp, the bot elsewhere) and content. */
  private attemptOn(step: FailoverStep, base: AcceptBase, kind: MessageKind, prepared: PreparedSend): RouteAttempt {
    const { app, campaignId, contact, shown } = base;
    const bot = step.channel !== 'whatsapp';
    if (bot ? !step.sender : !app) throw notConnected(step.channel);
    return {
      channel: step.channel,
      appId: bot ? null : app!.id,
      sender: bot
        ? { connection_id: step.sender!.connection_id, credential: step.sender!.credential }
        : { connection_id: app!.phoneNumberId as string, waba_id: app!.wabaId },
      recipient: step.to,
      prepared,
      ...(kind !== 'TEMPLATE' ? { kind } : {}),
      ...(campaignId ? { campaignId } : {}),
      ...(contact ? { contact } : {}),
      ...(shown ? { threadContent: sentContent({ ...shown, renderedAs: prepared.renderedAs ?? null }) } : {}),
    };
  }

  /** A single channel through `enqueue`, or a route of several through the failover. */
  private acceptAttempts(base: AcceptBase, attempts: RouteAttempt[]): Promise<string> {
    if (attempts.length > 1) {
      return this.failover.accept(
        { userId: base.userId, accountId: base.accountId, idempotency: base.idempotency, alsoWrite: base.alsoWrite },
        attempts,
      );
    }
    const only = attempts[0];
    const alsoWrite = base.alsoWrite;
    return this.sends.enqueue({
      userId: base.userId,
      accountId: base.accountId,
      channel: only.channel,
      app: only.appId === null ? null : base.app,
      sender: only.sender,
      recipient: only.recipient,
      kind: only.kind ?? 'TEMPLATE',
      prepared: only.prepared,
      idempotency: base.idempotency,
      alsoWrite: alsoWrite && ((em, id) => alsoWrite(em, id, only)),
      campaignId: base.campaignId,
      contact: base.contact ?? null,
      threadContent: only.threadContent ?? null,
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
        campaignId: req.campaign_id,
        contactId: req.contact_id,
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
