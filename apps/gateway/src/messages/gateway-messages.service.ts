import { Injectable } from '@nestjs/common';
import {
  addressKindsOf,
  contentErrors,
  FailoverStep,
  GATEWAY_MESSAGES_RPC,
  GatewaySendChannel,
  GatewaySendResult,
  ListMessageReportsResult,
  MessageContact,
  MessageReport,
  readAddress,
  RenderedAs,
  renderedAs,
  SendContent,
  sendRecipient,
  UsageQuery,
  UsageReport,
} from '@app/contracts';
import { TargetPolicy } from '@app/egress';
import { BatchedRpc, RpcClient, RpcProblemError } from '@app/messaging';
import {
  ForbiddenProblem,
  NotFoundProblem,
  UnprocessableProblem,
  usageLastDay,
  usagePeriod,
  ValidationProblem,
} from '@app/server';
import { AuthenticatedAccount, billedUser } from '../accounts/authenticated-account';
import { ConnectionsRepository } from '../connections/connections.repository';
import { MediaLibraryService } from '../media/library/media-library.service';
import { PixelOpensService } from '../pixel/pixel-opens.service';
import { ContactsService } from '../contacts/contacts.service';
import { identitiesOf } from '../contacts/contact-addresses';
import { FlowAnswers, makeFlowToken } from '../flows/flow-tokens';
import { ListGatewayMessagesDto, SendGatewayMessageDto } from './dto/send-gateway-message.dto';
import { AcceptedSends } from './accepted-sends';
import { checkMediaUrl, contactRoute, LiveSenders, liveSendersOf, stepOn } from './send-route';
import { windowClosedOf } from './window-closed.problem';

/**
 * What a send answers: the api's result; for a `content` send what the (first) channel was asked
 * to send, and for a `flow` the token the platform made for it.
 */
export type GatewaySendAnswer = GatewaySendResult & { rendered_as?: RenderedAs; flow_token?: string };

/** How long the api may take to accept a send (its transaction and the stream's ack). */
const SEND_RPC_TIMEOUT_MS = 10_000;
const REPORT_RPC_TIMEOUT_MS = 5_000;
/**
 * Days of usage asked of the api per request: a week of every channel and category is at most
 * 2,520 rows, about 430 KB, well under NATS's 1 MiB payload limit that a 31- or 93-day answer
 * would exceed.
 */
const USAGE_DAYS_PER_CALL = 7;
const DAY_MS = 86_400_000;

/** The delivery report as the gateway shows it: with the message's tracking pixel to embed. */
export type GatewayMessageReport = MessageReport & {
  /** Absolute URL of the message's tracking pixel: loading it marks the message READ (once). */
  pixel_url: string;
};

/**
 * `POST /v1/messages` and the delivery report. The gateway knows the account and its connections;
 * the api, which owns templates, balances and messages, accepts the send through the same path as
 * its own sends and keeps the one report of every channel.
 */
@Injectable()
export class GatewayMessagesService {
  /** Sends accepted together: those that reach the api in the same turn go in one request. */
  private readonly sends: BatchedRpc<typeof GATEWAY_MESSAGES_RPC.sendBatch>;

  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly rpc: RpcClient,
    private readonly pixels: PixelOpensService,
    private readonly targets: TargetPolicy,
    private readonly contacts: ContactsService,
    private readonly acceptedSends: AcceptedSends,
    private readonly flows: FlowAnswers,
    private readonly library: MediaLibraryService,
  ) {
    this.sends = new BatchedRpc(rpc, GATEWAY_MESSAGES_RPC.sendBatch, {
      single: GATEWAY_MESSAGES_RPC.send,
      timeoutMs: SEND_RPC_TIMEOUT_MS,
      unavailable: 'The message could not be accepted right now; retry later (with the same Idempotency-Key).',
    });
  }

  /**
   * A send of a template or of `content` (exactly one): its recipient or route read here, each
   * channel's content limits checked before the api is asked (so nothing is held for a refused
   * send), then the api's one send path. A WhatsApp content send with the window closed is a 422
   * `WindowClosedProblem` naming the templates that could be sent instead.
   */
  async send(
    account: AuthenticatedAccount,
    dto: SendGatewayMessageDto,
    idempotency: { key: string; hash: string } | null,
  ): Promise<GatewaySendAnswer> {
    const replayKey = idempotency && `${account.id}\n${idempotency.key}`;
    const content = contentOf(dto, replayKey);
    if (dto.media_url) checkMediaUrl(this.targets, dto.media_url);
    if (content && 'url' in content && content.url !== undefined)
      checkMediaUrl(this.targets, content.url, 'content.url');
    const userId = billedUser(account);
    const { route, senders, contact } = await this.routeOf(account, dto);
    if (content) {
      const errors = route.flatMap((step) => contentErrors(step.channel, content));
      if (errors.length) throw new ValidationProblem(uniqueErrors(errors));
    }
    if (content)
      await this.library.checkContent(
        account,
        content,
        route.map((step) => step.channel),
      );
    // The linked WhatsApp app, when there is one: the sender on WhatsApp and its Meta templates'
    // source; the api chooses each channel's template (a bot template needs no app).
    const templateAppId = senders.whatsapp?.appId ?? null;
    const [first] = route;
    // A template that reaches WhatsApp carries a token for its FLOW button, if it has one (the api says).
    const templateFlowToken = !content && route.some((step) => step.channel === 'whatsapp');
    const result = await this.sends
      .call({
        account_id: account.id,
        user_id: userId,
        channel: first.channel,
        to: first.to,
        template_app_id: templateAppId,
        ...(content ? { content } : { template: dto.template! }),
        ...(dto.language ? { language: dto.language } : {}),
        params: dto.params ?? [],
        ...(dto.media_url ? { media_url: dto.media_url } : {}),
        ...(first.sender ? { sender: first.sender } : {}),
        ...(route.length > 1 ? { route } : {}),
        ...(contact ? { contact } : {}),
        ...(dto.coupon_code !== undefined ? { coupon_code: dto.coupon_code } : {}),
        ...(templateFlowToken ? { flow_token: makeFlowToken(replayKey) } : {}),
        idempotency,
      })
      .catch((err: unknown) => {
        throw (err instanceof RpcProblemError && windowClosedOf(err.problem)) || err;
      });
    const flowToken = content?.type === 'flow' ? content.flow_token : result.flow_token;
    // Kept before answering, so a Flow submitted as soon as it arrives is joined to this message.
    if (flowToken) await this.flows.remember(flowToken, account.id, result.id);
    const answer: GatewaySendAnswer = content
      ? { ...result, rendered_as: renderedAs(first.channel, content), ...(flowToken ? { flow_token: flowToken } : {}) }
      : result;
    this.acceptedSends.accepted({
      accountId: account.id,
      messageId: result.id,
      step: first,
      routed: route.length > 1,
      connectionId: senders[first.channel]!.id,
      content,
      template: content
        ? null
        : {
            name: dto.template!,
            language: dto.language ?? null,
            params: dto.params ?? [],
            media_url: dto.media_url ?? null,
          },
      renderedAs: answer.rendered_as ?? null,
    });
    return answer;
  }

  /**
   * Where a send goes: `channel` and `to` as given, or, for a `contact`, each of `channels` in
   * order on which the contact has an identity and the account a live connection (docs/failover.md);
   * with the live connections read for it (WhatsApp's among them, the template source), in one read.
   */
  private async routeOf(
    account: AuthenticatedAccount,
    dto: SendGatewayMessageDto,
  ): Promise<{ route: FailoverStep[]; senders: LiveSenders; contact?: MessageContact }> {
    const sendersOf = (channels: readonly GatewaySendChannel[]) =>
      liveSendersOf(this.connections, account.id, channels.includes('whatsapp') ? channels : [...channels, 'whatsapp']);
    if (dto.contact === undefined) {
      const errors = [
        ...(dto.channel === undefined
          ? [{ field: 'channel', message: 'channel (with to) or contact is required' }]
          : []),
        ...(dto.to === undefined ? [{ field: 'to', message: 'to (with channel) or contact is required' }] : []),
        ...(dto.channels !== undefined ? [{ field: 'channels', message: 'channels go with contact' }] : []),
      ];
      if (errors.length) throw new ValidationProblem(errors);
      const rule = recipientRule(dto.channel!);
      const to = readAddress(rule.kinds, dto.to!, account.defaultRegion)?.value ?? null;
      if (to === null) throw new ValidationProblem([{ field: 'to', message: rule.message }]);
      const senders = await sendersOf([dto.channel!]);
      const step = stepOn(senders, dto.channel!, to);
      if (!step) throw notConnected(dto.channel!);
      return { route: [step], senders };
    }
    const errors = [
      ...(dto.channel !== undefined ? [{ field: 'channel', message: 'a send names channel and to, or contact' }] : []),
      ...(dto.to !== undefined ? [{ field: 'to', message: 'a send names channel and to, or contact' }] : []),
      ...(dto.channels === undefined ? [{ field: 'channels', message: 'channels is required with contact' }] : []),
    ];
    if (errors.length) throw new ValidationProblem(errors);
    const contact = await this.contacts.get(account, dto.contact);
    const senders = await sendersOf(dto.channels!);
    const route = contactRoute(identitiesOf(contact.addresses), dto.channels!, senders);
    if (!route.length) {
      throw new UnprocessableProblem(
        'no-route',
        'No channel to send on',
        `The contact has no identity on any of ${dto.channels!.join(', ')} that the account has a live connection of.`,
      );
    }
    return { route, senders, contact: { id: contact.id, external_id: contact.external_id } };
  }

  async get(account: AuthenticatedAccount, id: string): Promise<GatewayMessageReport> {
    const answer = await this.rpc.call(
      GATEWAY_MESSAGES_RPC.get,
      { account_id: account.id, id },
      { timeoutMs: REPORT_RPC_TIMEOUT_MS, unavailable: 'The delivery report cannot be read right now; retry later.' },
    );
    if (answer.found) return this.withPixel(answer.report);
    if (answer.other_account) throw new ForbiddenProblem('The message belongs to another account.');
    throw new NotFoundProblem('message');
  }

  async list(
    account: AuthenticatedAccount,
    q: ListGatewayMessagesDto,
  ): Promise<{ data: GatewayMessageReport[]; next_cursor: string | null }> {
    const from = q.from === undefined ? undefined : unixSeconds(q.from, 'from');
    const to = q.to === undefined ? undefined : unixSeconds(q.to, 'to');
    if (from !== undefined && to !== undefined && from >= to) {
      throw new ValidationProblem([{ field: 'to', message: 'to must be later than from' }]);
    }
    const page: ListMessageReportsResult = await this.rpc.call(
      GATEWAY_MESSAGES_RPC.list,
      {
        account_id: account.id,
        ...(q.channel ? { channel: q.channel } : {}),
        ...(q.status ? { status: q.status } : {}),
        ...(from !== undefined ? { from } : {}),
        ...(to !== undefined ? { to } : {}),
        ...(q.campaign_id ? { campaign_id: q.campaign_id.toLowerCase() } : {}),
        ...(q.contact_id ? { contact_id: q.contact_id.toLowerCase() } : {}),
        ...(q.cursor ? { cursor: q.cursor } : {}),
        limit: q.limit === undefined ? 50 : Number(q.limit),
      },
      { timeoutMs: REPORT_RPC_TIMEOUT_MS, unavailable: 'The delivery report cannot be read right now; retry later.' },
    );
    return { data: page.data.map((report) => this.withPixel(report)), next_cursor: page.next_cursor };
  }

  private withPixel(report: MessageReport): GatewayMessageReport {
    return { ...report, pixel_url: this.pixels.urlOf(report.id) };
  }

  /**
   * The usage of the account's user, read from the api's counters a week at a time (so no answer
   * outgrows a NATS message) and joined in order; the period is checked here first, by the same
   * rules as the api's.
   */
  async usage(account: AuthenticatedAccount, q: UsageQuery): Promise<UsageReport> {
    const userId = billedUser(account, 'no usage to report');
    const period = usagePeriod(q);
    const data: UsageReport['data'] = [];
    for (let start = period.from.getTime(); start < period.to.getTime(); start += USAGE_DAYS_PER_CALL * DAY_MS) {
      const end = Math.min(start + USAGE_DAYS_PER_CALL * DAY_MS, period.to.getTime());
      const part = await this.rpc.call(
        GATEWAY_MESSAGES_RPC.usage,
        {
          user_id: userId,
          from: new Date(start).toISOString().slice(0, 10),
          to: usageLastDay(new Date(end)),
          ...(q.channel ? { channel: q.channel } : {}),
          ...(q.category ? { category: q.category } : {}),
        },
        { timeoutMs: REPORT_RPC_TIMEOUT_MS, unavailable: 'The usage report cannot be read right now; retry later.' },
      );
      data.push(...part.data);
    }
    return { data };
  }
}

/**
 * The send's `content`, or null for a template send: exactly one of `template` and `content` (both
 * or neither is a field error); a content send takes none of the template's fields.
 */
function contentOf(dto: SendGatewayMessageDto, replayKey: string | null): SendContent | null {
  if (dto.content === undefined) {
    if (dto.template === undefined) {
      throw new ValidationProblem([{ field: 'template', message: 'template or content is required' }]);
    }
    return null;
  }
  const errors = [
    ...(dto.template !== undefined
      ? [{ field: 'content', message: 'a send takes template or content, not both' }]
      : []),
    ...(['params', 'language', 'media_url', 'coupon_code'] as const)
      .filter((f) => dto[f] !== undefined)
      .map((f) => ({ field: f, message: `${f} goes with template` })),
  ];
  if (errors.length) throw new ValidationProblem(errors);
  const content = dto.content as SendContent;
  if (content.type !== 'flow') return content;
  // The platform makes a Flow's token (the submitted Flow carries it back).
  return { ...content, flow_token: makeFlowToken(replayKey) };
}

/**
 * Who `to` can name on a channel: its registered send recipients and, on WhatsApp, a
 * business-scoped user id as well (a customer known only by it is answered there).
 */
function recipientRule(channel: GatewaySendChannel): ReturnType<typeof sendRecipient> {
  const rule = sendRecipient(channel);
  const userId = channel === 'whatsapp' ? addressKindsOf(channel).find((k) => k.kind === 'user_id') : undefined;
  if (!userId || rule.kinds.includes(userId)) return rule;
  return { kinds: [...rule.kinds, userId], message: `${rule.message}, or a business-scoped user id` };
}

/** The same field error once, though several channels of a route refuse it alike. */
function uniqueErrors(errors: { field: string; message: string }[]): { field: string; message: string }[] {
  const seen = new Set<string>();
  return errors.filter((e) => !seen.has(`${e.field}\n${e.message}`) && !!seen.add(`${e.field}\n${e.message}`));
}

const notConnected = (channel: string) =>
  new UnprocessableProblem(
    'not-connected',
    'Channel not connected',
    `The account has no ${channel} connection: connect one with POST /v1/connections.`,
  );

/** An ISO 8601 date or date-time as Unix seconds; an impossible date (2026-02-30) is a field error. */
function unixSeconds(value: string, field: string): number {
  const ms = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value);
  const day = value.slice(0, 10);
  if (!Number.isFinite(ms) || new Date(Date.parse(`${day}T00:00:00Z`)).toISOString().slice(0, 10) !== day) {
    throw new ValidationProblem([{ field, message: `${field} is not a valid date` }]);
  }
  return Math.floor(ms / 1000);
}
