import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  Channel,
  ConversationContent,
  MessageCategory,
  MessageContact,
  MessageKind,
  newMessageId,
  OutboundContent,
  MessageReport,
  OutboundMessage,
  priorityOf,
  RenderedAs,
  TIER_CAP_OF,
  Topology,
} from '@app/contracts';
import {
  ForbiddenProblem,
  NotFoundProblem,
  ProblemError,
  ServiceUnavailableProblem,
  UnprocessableProblem,
  ValidationProblem,
  Clock,
} from '@app/server';
import { AppEntity } from '../wa-apps/app.entity';
import { marketingPauseOf } from '../wa-apps/marketing-pause';
import { WaAppsService } from '../wa-apps/wa-apps.service';
import { MessagePrices } from '../billing/message-prices';
import { ConversationsService } from '../conversations/conversations.service';
import { ConsentService } from '../consent/consent.service';
import type { KeyLease } from '../idempotency/idempotency.service';
import { SendMessageDto, SendMessageResponseDto } from './dto/send-message.dto';
import { MessageEntity } from '../messages/message.entity';
import { MessagesRepository } from '../messages/messages.repository';
import { messageReport } from '../messages/message-report';
import { Outbox } from '../outbox';
import { SendTransaction } from './send-transaction';
import { SendableTemplatesRepository } from './sendable-templates.repository';
import { chooseTemplate, resolveTemplate } from './template-message';

/** What the status endpoint shows about a message: the report, with its kind; never its content. */
export type MessageStatusView = Omit<MessageReport, 'to' | 'campaign_id' | 'contact'> & {
  kind: string;
  recipient: string | null;
};

export interface PreparedSend {
  category: MessageCategory;
  content: OutboundContent;
  templateId: number | null;
  /** A content send: what its channel is asked to send (kept on the message for its report). */
  renderedAs?: RenderedAs | null;
}

/**
 * Intake of a send: the app, the template or the 24-hour window, then the send transaction (the
 * messaging tier, the price held from the balance, the message and its outbox row), then the
 * publish to its priority stream. The caller gets 201 once the send is committed and the stream stored
 * it, or did not confirm it within the publish deadline (the relay then publishes it).
 */
@Injectable()
export class MessagesService {
  private readonly logger = new Logger(MessagesService.name);

  constructor(
    private readonly apps: WaAppsService,
    private readonly messages: MessagesRepository,
    private readonly templates: SendableTemplatesRepository,
    private readonly sends: SendTransaction,
    private readonly outbox: Outbox,
    private readonly prices: MessagePrices,
    private readonly windows: ConversationsService,
    private readonly consent: ConsentService,
    private readonly topology: Topology,
    private readonly clock: Clock,
  ) {}

  /** The app a sender may send from: their own, ACTIVE, not stopped and connected to a number. */
  async sendingApp(appIdParam: string, userId: string): Promise<AppEntity> {
    const app = await this.apps.getOwnedApp(appIdParam, userId);
    if (app.status !== 'ACTIVE') throw new ForbiddenProblem(`The app is ${app.status}: only ACTIVE apps can send.`);
    if (app.isStopped) throw new ForbiddenProblem('The app is stopped: it cannot send.');
    if (!app.phoneNumberId) throw new ForbiddenProblem('The app has no connected WhatsApp number.');
    return app;
  }

  async send(
    userId: string,
    appIdParam: string,
    dto: SendMessageDto,
    idempotency: KeyLease | null = null,
  ): Promise<SendMessageResponseDto> {
    const app = await this.sendingApp(appIdParam, userId);
    const prepared = await this.prepare(app, dto);
    const id = await this.enqueue({
      userId,
      accountId: null,
      channel: 'whatsapp',
      app,
      sender: { connection_id: app.phoneNumberId as string, waba_id: app.wabaId },
      recipient: dto.phone,
      kind: dto.type,
      prepared,
      idempotency,
    });
    return { message: { id } };
  }

  /**
   * The one way a send is accepted, whatever the surface: consent (an opted-out recipient: 422
   * recipient-opted-out, before anything is held), its price and lane, the app's marketing
   * pause (a RED quality rating or a channel restriction: 403 marketing-paused), the send transaction
   * (tier, hold, message, outbox row), then the publish to its priority stream. Resolves with the
   * message id once the stream has stored it or, when the stream does not confirm it within the
   * publish deadline, once that deadline passed: the committed outbox row is then published by the relay.
   */
  async enqueue(send: {
    userId: string;
    accountId: string | null;
    channel: Channel;
    /** The WhatsApp app that sends it (its tier applies); null on a bot channel. */
    app: AppEntity | null;
    sender: OutboundMessage['sender'];
    recipient: string;
    kind: MessageKind;
    prepared: PreparedSend;
    /** The Idempotency-Key it is sent under: committed only while the request still holds it. */
    idempotency: KeyLease | null;
    /** More to write in the send's transaction once accepted, given the message id. */
    alsoWrite?: (em: EntityManager, id: string) => Promise<void>;
    /** The campaign it is sent for: kept on the message and carried by its events. */
    campaignId?: string | null;
    /** The contact it is sent to: kept on the message for its report. */
    contact?: MessageContact | null;
    /** What it shows in its recipient's conversation: carried by its sent and failed events. */
    threadContent?: ConversationContent | null;
  }): Promise<string> {
    const { prepared, app } = send;
    // The broker's connection is down: nothing can be stored on a stream, so say so now, before
    // anything is held (a broker that stops answering without closing the connection still costs
    // the publish deadline).
    if (!this.outbox.connected()) {
      throw new ServiceUnavailableProblem('The message queue is unavailable; nothing was charged. Retry later.', 2);
    }
    await this.consent.check(send.userId, send.channel, send.recipient, prepared.category);
    const price = this.prices.priceOf(prepared.category, send.channel);
    const priority = priorityOf(prepared.category);
    const id = newMessageId();
    if (app && priority === 'marketing') {
      const paused = marketingPauseOf(app, this.clock.now());
      if (paused) throw new ProblemError(403, 'marketing-paused', 'Marketing paused', paused);
    }
    const cap = app ? (app.messageCap ?? TIER_CAP_OF[app.messageLimit]) : null;
    const outbound: OutboundMessage = {
      id,
      channel: send.channel,
      priority,
      category: prepared.category,
      user_id: send.userId,
      app_id: app?.id ?? null,
      sender: send.sender,
      recipient: send.recipient,
      kind: send.kind,
      content: prepared.content,
      queued_at: this.clock.nowMs(),
      ...(send.campaignId ? { campaign_id: send.campaignId } : {}),
      ...(send.threadContent ? { thread_content: send.threadContent } : {}),
    };
    const entry = { id, subject: this.topology.outboundSubject(priority, send.channel), payload: outbound };
    const outcome = await this.sends.commit({
      message: {
        id,
        userId: send.userId,
        appId: app?.id ?? null,
        accountId: send.accountId,
        channel: send.channel,
        recipient: send.recipient,
        kind: send.kind,
        category: prepared.category,
        priority,
        templateId: prepared.templateId,
        providerMessageId: null,
        price,
        idempotencyKey: send.idempotency?.key ?? null,
        requestHash: send.idempotency?.hash ?? null,
        failureCode: null,
        failureReason: null,
        campaignId: send.campaignId ?? null,
        contactId: send.contact?.id ?? null,
        contactExternalId: send.contact?.external_id ?? null,
        renderedAs: prepared.renderedAs ?? null,
      },
      tier: app && send.kind === 'TEMPLATE' && cap !== null ? { appId: app.id, cap, label: app.messageLimit } : null,
      outbox: entry,
      lease: send.idempotency,
      alsoWrite: send.alsoWrite && ((em) => send.alsoWrite!(em, id)),
    });
    if (!outcome.accepted) throw outcome.problem;
    try {
      await this.outbox.publish(entry);
    } catch (err) {
      // Committed with its outbox row: accepted. Whether the stream stored it is unknown (a lost
      // answer looks the same as a lost publish), so it is never withdrawn here: the relay publishes
      // the row again under the same Nats-Msg-Id, stored once, and the queue's delivery state keeps
      // the channel from getting it twice. Every answer for the send names this one message.
      this.logger.warn({ err, messageId: id }, 'the stream did not confirm the publish: the outbox relay will');
    }
    return id;
  }

  /** The message a send with this Idempotency-Key and request committed, if one did. */
  async acceptedWithKey(userId: string, key: string, hash: string): Promise<string | null> {
    return this.messages.findIdByIdempotencyKey(userId, key, hash);
  }

  /** The category and outbound content of a send, after the template or window rules. */
  private async prepare(app: AppEntity, dto: SendMessageDto): Promise<PreparedSend> {
    if (dto.type === 'TEMPLATE' && dto.template) {
      const chosen = chooseTemplate(await this.templates.findTemplates(app.id, dto.template.name), dto.template);
      if (Array.isArray(chosen)) throw new ValidationProblem(chosen);
      const resolved = resolveTemplate(chosen, dto.template, {
        requested: dto.is_mm_lite === true,
        supported: app.isMmLiteSupported,
      });
      if (Array.isArray(resolved)) throw new ValidationProblem(resolved);
      return { category: resolved.category, content: { template: resolved.content }, templateId: chosen.id };
    }
    if (!(await this.windows.isOpen(app.id, dto.phone))) {
      throw new UnprocessableProblem(
        'template-required',
        'Template required',
        'The recipient has not written to this app in the last 24 hours: only a template message can be sent.',
      );
    }
    return { category: 'SERVICE', content: await this.freeFormContent(app, dto), templateId: null };
  }

  private async freeFormContent(app: AppEntity, dto: SendMessageDto): Promise<OutboundContent> {
    switch (dto.type) {
      case 'TEXT':
        return { text: { body: dto.text!.body } };
      case 'IMAGE':
        return { image: { url: dto.image!.url, caption: dto.image!.caption } };
      case 'VIDEO':
        return { video: { url: dto.video!.url, caption: dto.video!.caption } };
      case 'DOCUMENT':
        return { document: { url: dto.document!.url, caption: dto.document!.caption } };
      case 'AUDIO':
        return { audio: { url: dto.audio!.url, is_voice: dto.audio!.is_voice } };
      case 'REACTION': {
        // A reaction to one of our own messages names it by our id; the channel needs its own id.
        const target = await this.messages.findForApp(app.id, dto.reaction!.message_id).catch(() => null);
        return {
          reaction: {
            emoji: dto.reaction!.emoji,
            message_id: dto.reaction!.message_id,
            provider_message_id: target ? target.providerMessageId : dto.reaction!.message_id,
          },
        };
      }
      default:
        throw new ValidationProblem([{ field: 'type', message: `unsupported type ${dto.type}` }]);
    }
  }

  async status(userId: string, appIdParam: string, messageId: string): Promise<MessageStatusView> {
    const app = await this.apps.getOwnedApp(appIdParam, userId);
    const message = messageId.length <= 64 ? await this.messages.findForApp(app.id, messageId) : null;
    if (!message) throw new NotFoundProblem('message');
    const report = await this.report(message);
    // Campaigns and contacts are the gateway's: the API's answer has neither.
    const { to, campaign_id: _campaign, contact: _contact, ...rest } = report;
    return { ...rest, kind: message.kind, recipient: to };
  }

  /** What anyone may see of a message: status, timeline, price, failure; never its content. */
  async report(message: MessageEntity): Promise<MessageReport> {
    return messageReport(message, await this.messages.timeline(message.id));
  }
}
