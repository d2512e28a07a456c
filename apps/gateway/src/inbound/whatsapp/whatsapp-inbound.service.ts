import { createHash } from 'node:crypto';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Subscription } from '@nats-io/nats-core';
import { trace } from '@opentelemetry/api';
import { constantTimeEqual } from '@app/auth';
import { APPS_RPC, AppSignal, EventEnvelope, Topology } from '@app/contracts';
import {
  contextFrom,
  DeliveryStateStore,
  EventPublisher,
  inSpan,
  NatsClients,
  publishDurableWithin,
  RpcClient,
  settle,
  Settlement,
  tracingEnabled,
} from '@app/messaging';
import { verifyHubSignature } from '@app/channels';
import { counter, ForbiddenProblem, ProblemError, ServiceUnavailableProblem, ValidationProblem } from '@app/server';
import { ChannelStatus } from '../../channel-status/channel-status';
import { GatewayConfig } from '../../config';
import { InboundBacklog, RelayProgress } from '../inbound-backlog';
import { RecentSet } from '../recent-set';
import { InboundPosition, StatusRelayOrder } from '../status-relay-order';
import { connectionKeyOf, Tenant, TenantResolver } from '../tenant-resolver';
import { normalizeWhatsAppWebhook, tenantLookupOf } from './whatsapp-webhook.normalizer';

/**
 * How many recorded hand-overs are remembered: a message's callbacks (sent, delivered, read) come
 * within minutes, and a second record of the same hand-over would change nothing.
 */
const RECORDED_REMEMBERED = 20_000;

/** 401 for a callback whose X-Hub-Signature-256 is missing or does not match its body. */
export class InvalidSignatureProblem extends ProblemError {
  constructor() {
    super(401, 'invalid-signature', 'Invalid signature', 'X-Hub-Signature-256 is missing or does not match the body.');
  }
}

/** The api applies a signal with a few indexed statements; past this the relay tries again later. */
const SIGNAL_RPC_TIMEOUT_MS = 5_000;

const NO_TENANT: Tenant = { app_id: null, user_id: null };

/**
 * How long a status callback waits for the api to name an unknown connection's owner before it
 * goes through INBOUND instead. Asked on the callback's own path, every gateway replica publishes
 * a connection's statuses the same way from its first: a status waiting in one replica's INBOUND
 * while the next, taken by another replica that knew the owner, went to EVENTS at once, would
 * reach subscribers before it.
 */
const OWNER_WAIT_MS = 500;

/**
 * The ordering key of a status event: a subject token (22 characters of a SHA-256 of its message
 * id; ids such as wamids have dots), the same in every replica. Undefined for any other event
 * (inbound messages, reactions, template updates), which always goes through INBOUND.
 */
function statusKeyOf(event: EventEnvelope): string | undefined {
  const id = (event.data as { message_id?: unknown }).message_id;
  return event.type.startsWith('message.') && typeof id === 'string' && id
    ? createHash('sha256').update(id).digest('base64url').slice(0, 22)
    : undefined;
}

const webhooks = () => counter('whatsapp_webhooks_total', 'WhatsApp webhook calls by outcome', ['outcome']);
const events = () => counter('whatsapp_webhook_events_total', 'Events normalized from WhatsApp webhooks', ['type']);

/** Verifies WhatsApp callbacks and publishes what they say as platform events. */
@Injectable()
export class WhatsAppInboundService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WhatsAppInbound');
  private deliveryState?: Promise<DeliveryStateStore | null>;
  /** Messages whose hand-over this process recorded lately (oldest first): their later callbacks need no record. */
  private readonly recorded = new RecentSet<string>(RECORDED_REMEMBERED);
  /** The relay's last started event: the next one starts after it (see relay). */
  private relayOrder: Promise<void> = Promise.resolve();
  /** Whether an event of a known connection may go to EVENTS at once (see store). */
  private readonly backlog = new InboundBacklog({
    progress: (withLastSeq) => this.relayProgress(withLastSeq),
    lastStored: (key) => this.storedSeq({ last_by_subj: this.topology.inboundStatusSubject('whatsapp', key) }),
  });
  /** One message's statuses relayed in INBOUND order by every replica (see relay). */
  private readonly statusOrder = new StatusRelayOrder((subject, seq) => this.storedSeq({ next_by_subj: subject, seq }));
  /** Every replica's stores of statuses in INBOUND, seen as they are published (see onApplicationBootstrap). */
  private storesSeen?: Subscription;
  private stopWatchingReconnects?: () => void;

  constructor(
    private readonly config: GatewayConfig,
    private readonly publisher: EventPublisher,
    private readonly clients: NatsClients,
    private readonly topology: Topology,
    private readonly tenants: TenantResolver,
    private readonly status: ChannelStatus,
    private readonly rpc: RpcClient,
  ) {}

  /** Meta's subscription check: echo `hub.challenge` when the verify token matches. */
  verifyChallenge(query: Record<string, unknown>): string {
    const mode = query['hub.mode'];
    const token = query['hub.verify_token'];
    const challenge = query['hub.challenge'];
    if (typeof challenge !== 'string' || !challenge) {
      throw new ValidationProblem([{ field: 'hub.challenge', message: 'hub.challenge is required' }]);
    }
    if (
      mode !== 'subscribe' ||
      typeof token !== 'string' ||
      !constantTimeEqual(token, this.config.WHATSAPP_VERIFY_TOKEN)
    ) {
      throw new ForbiddenProblem('The verify token does not match.');
    }
    return challenge;
  }

  /**
   * Verifies the signature over the raw bytes, then parses them (`parse`: never before the
   * signature matches), and stores every event it carries before answering, so a 200 means the
   * callback is kept (see store). Whose an event is, when not remembered, is resolved afterwards by
   * the relay (InboundRelay), so a slow or stopped api never makes the channel wait or retry.
   * Event ids are deterministic, so a callback delivered twice is stored once.
   */
  async receive(
    raw: Buffer | undefined,
    signature: string | undefined,
    parse: () => Promise<unknown>,
  ): Promise<{ events: number }> {
    if (!raw || !verifyHubSignature(this.config.WHATSAPP_APP_SECRET, raw, signature)) {
      webhooks().inc({ outcome: 'bad_signature' });
      throw new InvalidSignatureProblem();
    }
    const normalized = normalizeWhatsAppWebhook(await parse());
    if (normalized.skipped.length)
      this.logger.debug({ skipped: normalized.skipped }, 'parts of a webhook were ignored');
    try {
      const keys = normalized.events.map(statusKeyOf);
      const owners = await this.ownersNow(normalized.events, keys);
      await Promise.all([
        ...normalized.events.map((event, i) => this.store(event, keys[i], owners[i])),
        ...normalized.signals.map((signal) =>
          publishDurableWithin(this.clients.js, this.topology.inboundSignalSubject('whatsapp'), signal, signal.id),
        ),
      ]);
    } catch (err) {
      webhooks().inc({ outcome: 'publish_failed' });
      this.logger.error({ err }, 'could not store WhatsApp webhook events');
      throw new ServiceUnavailableProblem('The events could not be stored; retry later.');
    }
    await this.recordObserved(normalized.observed);
    webhooks().inc({ outcome: 'accepted' });
    return { events: normalized.events.length + normalized.signals.length };
  }

  /**
   * Stores one event. A status (`key`: its message's ordering key) whose connection's owner is known
   * (`owner`), and no status of whose message waits in INBOUND (stored by any replica), is stamped
   * and published to EVENTS at once, under its own id as the relay would (no second publish, pull
   * and acknowledgement); any other event goes to INBOUND (a status under its message's subject),
   * and a message's later statuses follow it there until the relay has taken it, so that none
   * overtakes an earlier one. Tracing on, an event about one of our
   * messages is handled in a span of that message's trace (its context is the one the queue stored
   * with the channel call), linked to the callback's request; the stored event carries it on to the
   * relay, the api and the webhooks.
   */
  private async store(event: EventEnvelope, key: string | undefined, owner: Tenant | undefined): Promise<void> {
    const tenant = key && owner && this.backlog.mayPass(key) ? owner : undefined;
    const publish = tenant
      ? async () => {
          await publishDurableWithin(
            this.clients.js,
            this.topology.eventSubject(event.type),
            Object.assign(event, tenant),
            event.id,
          );
          this.status.relayed();
          events().inc({ type: event.type });
        }
      : async () => {
          const inbound = (subject: string) => () => publishDurableWithin(this.clients.js, subject, event, event.id);
          await (key
            ? this.backlog.storing(key, inbound(this.topology.inboundStatusSubject('whatsapp', key)))
            : inbound(this.topology.inboundSubject('whatsapp'))());
        };
    const messageId = event.data.message_id;
    if (!tracingEnabled() || typeof messageId !== 'string') {
      await publish();
      return;
    }
    const stored = await this.deliveryStore()
      .then((store) => store?.readTrace(messageId))
      .catch(() => null);
    const callback = trace.getActiveSpan()?.spanContext();
    await inSpan(
      `whatsapp callback ${event.type}`,
      {
        parent: stored ? contextFrom(stored) : undefined,
        links: callback ? [{ context: callback }] : [],
        attributes: { 'app.channel': 'whatsapp', 'app.event.type': event.type, 'messaging.message.id': messageId },
      },
      publish,
    );
  }

  /**
   * The relay's step for one stored event: stamps its app and tenant (the api's answer, cached per
   * connection) and publishes it to EVENTS under its own id. Throws while the api cannot say whose
   * it is: the event stays in INBOUND and is tried again with back-off. Events are published in the
   * order they are handed over, without waiting for one's acknowledgement before the next is sent;
   * a status (`at`: where it is in INBOUND, under its message's subject) waits until every earlier
   * status of its message there is relayed, by this process or another replica, and otherwise is
   * tried again later (StatusRelayOrder): one message's statuses stay in lifecycle order.
   */
  async relay(event: EventEnvelope, at?: InboundPosition): Promise<Settlement | void> {
    const step = (earlierRelayed: Promise<boolean>) =>
      this.inOrder(async () => {
        if (!(await earlierRelayed)) return undefined;
        Object.assign(event, await this.tenantOf(event));
        return { stored: this.publisher.publish(event) };
      });
    const published = await (at ? this.statusOrder.relay(at, step) : step(Promise.resolve(true)));
    // Tried again with the relay's back-off, as the earlier one is while it fails: a status behind
    // one that waits out an api outage has as many deliveries left as that one, not fewer.
    if (!published) return settle.retry('an earlier status of its message is not relayed yet');
    events().inc({ type: event.type });
  }

  /**
   * The relay's step for one stored account signal: the api (owner of apps) applies it and tells
   * subscribers (`app.updated`). In the same order as the events; while the api does not answer,
   * the signal stays in INBOUND and is tried again.
   */
  async relaySignal(signal: AppSignal): Promise<void> {
    await this.inOrder(async () => ({
      stored: this.rpc.call(APPS_RPC.applySignal, signal, { timeoutMs: SIGNAL_RPC_TIMEOUT_MS }),
    }));
    events().inc({ type: 'app.signal' });
  }

  /**
   * Starts `step` after the previous one started; resolves once its own work is done: true, or
   * false when `step` chose not to do it (undefined).
   */
  private async inOrder(step: () => Promise<{ stored: Promise<unknown> } | undefined>): Promise<boolean> {
    const started = this.relayOrder.then(step);
    this.relayOrder = started.then(
      () => undefined,
      () => undefined,
    );
    try {
      const work = await started;
      if (!work) return false;
      await work.stored;
    } catch (err) {
      this.status.relayFailed(err);
      throw err;
    }
    this.status.relayed();
    return true;
  }

  /** Events that name no connection stay without a tenant, as do connections no app owns. */
  private tenantOf(event: EventEnvelope): Promise<Tenant> {
    const lookup = tenantLookupOf(event);
    return lookup ? this.tenants.resolve(lookup) : Promise.resolve(NO_TENANT);
  }

  /**
   * Each status event's tenant if the api can say it while the channel waits (OWNER_WAIT_MS):
   * remembered, or asked now, once per connection of the webhook, so that all of a connection's
   * statuses in it take the same path. Undefined for the others: they go through INBOUND, whose
   * relay asks until the api answers.
   */
  private ownersNow(events: EventEnvelope[], keys: (string | undefined)[]): Promise<(Tenant | undefined)[]> {
    const asked = new Map<string, Promise<Tenant | undefined>>();
    return Promise.all(
      events.map((event, i) => {
        if (!keys[i]) return undefined;
        const lookup = tenantLookupOf(event);
        if (!lookup) return NO_TENANT;
        const key = connectionKeyOf(lookup);
        let owner = asked.get(key);
        if (!owner) asked.set(key, (owner = this.tenants.within(lookup, OWNER_WAIT_MS)));
        return owner;
      }),
    );
  }

  /**
   * The relay's acknowledgement floor in INBOUND; with nothing pending and nothing unacknowledged,
   * every message it was given (a stream's last messages may be gone before the floor reaches them).
   */
  private async relayProgress(withLastSeq: boolean): Promise<RelayProgress> {
    const jsm = await this.clients.jsm();
    const stream = this.topology.stream('inbound');
    const info = await jsm.consumers.info(stream, this.topology.inboundConsumer());
    const idle = info.num_pending === 0 && info.num_ack_pending === 0;
    return {
      ackFloor: idle ? Math.max(info.ack_floor.stream_seq, info.delivered.stream_seq) : info.ack_floor.stream_seq,
      lastSeq: withLastSeq ? (await jsm.streams.info(stream)).state.last_seq : undefined,
    };
  }

  /** The sequence of the message of INBOUND that `query` names (the first at or after, the last), null if none. */
  private async storedSeq(
    query: { last_by_subj: string } | { next_by_subj: string; seq: number },
  ): Promise<number | null> {
    const jsm = await this.clients.jsm();
    // The server answers `next_by_subj` on this request too; the client's type names only the others.
    const stored = await jsm.streams.getMessage(this.topology.stream('inbound'), query as { last_by_subj: string });
    return stored ? stored.seq : null;
  }

  /**
   * Tells the delivery workers that the channel has these messages, so a redelivered work item is
   * not sent again. Best effort: the events are already stored, and a missing record only costs a
   * possible duplicate send, which the channel's own id keeps visible.
   */
  private async recordObserved(observed: { messageId: string; providerMessageId: string }[]): Promise<void> {
    if (!observed.length) return;
    const store = await this.deliveryStore();
    if (!store) return;
    // A webhook may carry many messages' statuses (Meta aggregates them): recorded together.
    const unrecorded = new Map(observed.filter((o) => !this.recorded.has(o.messageId)).map((o) => [o.messageId, o]));
    await Promise.all(
      [...unrecorded.values()].map((o) =>
        store
          .recordObserved(o.messageId, o.providerMessageId)
          .then(() => this.recorded.add(o.messageId))
          .catch((err: unknown) =>
            this.logger.warn({ err, messageId: o.messageId }, 'could not record an observed delivery'),
          ),
      ),
    );
  }

  /** The delivery-state bucket, opened once; null while it is unavailable. */
  private deliveryStore(): Promise<DeliveryStateStore | null> {
    return (this.deliveryState ??= DeliveryStateStore.open(this.clients.js, this.topology).catch((err) => {
      this.logger.warn({ err }, 'delivery state bucket unavailable; callbacks are not recorded there');
      this.deliveryState = undefined;
      return null;
    }));
  }

  /**
   * Listens to every replica's stores of statuses in INBOUND (a status's subject names its message)
   * before the first look at the relay, so that a message with a status waiting there, whoever
   * stored it, has its later statuses follow it (see store); after a reconnect, what was stored
   * while the connection was away counts as at a start.
   */
  onApplicationBootstrap(): void {
    this.storesSeen = this.clients.nc.subscribe(this.topology.inboundStatusWildcard('whatsapp'), {
      callback: (err, msg) => {
        const key = err ? undefined : this.topology.inboundStatusTokenOf('whatsapp', msg.subject);
        if (key) this.backlog.observed(key);
      },
    });
    this.stopWatchingReconnects = this.clients.onReconnect(() => this.backlog.unseenStores());
    this.backlog.start();
  }

  onApplicationShutdown(): void {
    this.storesSeen?.unsubscribe();
    this.storesSeen = undefined;
    this.stopWatchingReconnects?.();
    this.backlog.stop();
    this.deliveryState = undefined;
  }
}
