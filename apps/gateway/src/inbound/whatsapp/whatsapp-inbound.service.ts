import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import { constantTimeEqual } from '@app/auth';
import { APPS_RPC, AppSignal, EventEnvelope, STATUS_OF_EVENT, Topology } from '@app/contracts';
import {
  contextFrom,
  DeliveryStateStore,
  EventPublisher,
  inSpan,
  NatsClients,
  publishDurableWithin,
  RpcClient,
  tracingEnabled,
} from '@app/messaging';
import { verifyHubSignature } from '@app/channels';
import {
  Clock,
  counter,
  ForbiddenProblem,
  ProblemError,
  ServiceUnavailableProblem,
  ValidationProblem,
} from '@app/server';
import { ChannelStatus } from '../../channel-status/channel-status';
import { FlowAnswers } from '../../flows/flow-tokens';
import { GatewayConfig } from '../../config';
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

/** A status of a message (sent, delivered, read, failed): the events that may go to EVENTS at once. */
function isStatus(event: EventEnvelope): boolean {
  return STATUS_OF_EVENT[event.type] !== undefined;
}

const webhooks = () => counter('whatsapp_webhooks_total', 'WhatsApp webhook calls by outcome', ['outcome']);
const events = () => counter('whatsapp_webhook_events_total', 'Events normalized from WhatsApp webhooks', ['type']);

/** Verifies WhatsApp callbacks and publishes what they say as platform events. */
@Injectable()
export class WhatsAppInboundService implements OnApplicationShutdown {
  private readonly logger = new Logger('WhatsAppInbound');
  private deliveryState?: Promise<DeliveryStateStore | null>;
  /** Messages whose hand-over this process recorded lately (oldest first): their later callbacks need no record. */
  private readonly recorded = new Set<string>();
  /** The relay's last started step: the next one starts after it (see relay). */
  private relayOrder: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: GatewayConfig,
    private readonly publisher: EventPublisher,
    private readonly clients: NatsClients,
    private readonly topology: Topology,
    private readonly tenants: TenantResolver,
    private readonly status: ChannelStatus,
    private readonly rpc: RpcClient,
    private readonly clock: Clock,
    private readonly flows: FlowAnswers,
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
    const normalized = normalizeWhatsAppWebhook(await parse(), this.clock.now());
    if (normalized.skipped.length)
      this.logger.debug({ skipped: normalized.skipped }, 'parts of a webhook were ignored');
    try {
      const owners = this.ownersNow(normalized.events);
      await Promise.all([
        ...normalized.events.map((event, i) => this.store(event, owners[i])),
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
   * Stores one event. A status whose connection's owner is known (`owner`) is stamped and published
   * to EVENTS at once, under its own id as the relay would (no second publish, pull and
   * acknowledgement); any other event goes to INBOUND, for the relay to stamp and publish. A status
   * may so reach EVENTS before an earlier one of its message still in INBOUND: subscribers are sent
   * a message's statuses forward only whatever their order there (docs/webhooks.md), as the api
   * applies them. Tracing on, an event about one of our
   * messages is handled in a span of that message's trace (its context is the one the queue stored
   * with the channel call), linked to the callback's request; the stored event carries it on to the
   * relay, the api and the webhooks.
   */
  private async store(event: EventEnvelope, owner: Tenant | undefined): Promise<void> {
    const publish = async () => {
      if (!owner) {
        await publishDurableWithin(this.clients.js, this.topology.inboundSubject('whatsapp'), event, event.id);
        return;
      }
      await publishDurableWithin(
        this.clients.js,
        this.topology.eventSubject(event.type),
        Object.assign(event, owner),
        event.id,
      );
      this.status.relayed();
      events().inc({ type: event.type });
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
   * order they are handed over, without waiting for one's acknowledgement before the next is sent.
   * A submitted Flow carrying one of the platform's tokens is joined to its message first (FlowAnswers).
   */
  async relay(event: EventEnvelope): Promise<void> {
    await this.inOrder(async () => {
      Object.assign(event, await this.tenantOf(event));
      await this.flows.join(event);
      return { stored: this.publisher.publish(event) };
    });
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
   * Starts `step` after the previous one started (not finished: its `stored` is awaited here, so
   * the next step need not wait for it); resolves once its work is done.
   */
  private async inOrder(step: () => Promise<{ stored: Promise<unknown> }>): Promise<void> {
    const started = this.relayOrder.then(step);
    this.relayOrder = started.then(
      () => undefined,
      () => undefined,
    );
    try {
      await (
        await started
      ).stored;
    } catch (err) {
      this.status.relayFailed(err);
      throw err;
    }
    this.status.relayed();
  }

  /** Events that name no connection stay without a tenant, as do connections no app owns. */
  private tenantOf(event: EventEnvelope): Promise<Tenant> {
    const lookup = tenantLookupOf(event);
    return lookup ? this.tenants.resolve(lookup) : Promise.resolve(NO_TENANT);
  }

  /**
   * Each status event's tenant when it is known now (TenantResolver.known), asked once per
   * connection of the webhook; undefined for the other events and for statuses of connections whose
   * owner is not known yet: they go through INBOUND, whose relay asks until the api answers.
   */
  private ownersNow(events: EventEnvelope[]): (Tenant | undefined)[] {
    const asked = new Map<string, Tenant | undefined>();
    return events.map((event) => {
      if (!isStatus(event)) return undefined;
      const lookup = tenantLookupOf(event);
      if (!lookup) return NO_TENANT;
      const key = connectionKeyOf(lookup);
      if (!asked.has(key)) asked.set(key, this.tenants.known(lookup));
      return asked.get(key);
    });
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
          .then(() => this.remember(o.messageId))
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

  /** Remembers a recorded hand-over, forgetting the oldest past RECORDED_REMEMBERED. */
  private remember(messageId: string): void {
    this.recorded.add(messageId);
    if (this.recorded.size > RECORDED_REMEMBERED) this.recorded.delete(this.recorded.values().next().value as string);
  }

  onApplicationShutdown(): void {
    this.deliveryState = undefined;
  }
}
