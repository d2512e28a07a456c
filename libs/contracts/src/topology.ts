import { Channel, CHANNELS, Priority } from './channels';
import { EventType } from './events';

/** The logical streams (docs/architecture.md, Streams). */
export const STREAMS = {
  outboundService: 'OUTBOUND_SERVICE',
  outboundMarketing: 'OUTBOUND_MARKETING',
  events: 'EVENTS',
  deadLetter: 'DEAD_LETTER',
  inbound: 'INBOUND',
} as const;
export type StreamKey = keyof typeof STREAMS;

/** Durable consumers of the EVENTS stream, one per service that reacts to events. */
export const EVENT_CONSUMERS = ['api', 'webhooks', 'gateway'] as const;
export type EventConsumer = (typeof EVENT_CONSUMERS)[number];

/** JetStream Key-Value buckets of the platform (logical names; see Topology.kvBucket). */
export const KV_BUCKETS = {
  /** Per-message delivery state shared by the queue (sending/sent) and the gateway (observed). */
  deliveryState: 'delivery_state',
  /** Per-sender pacing shared by every queue replica of a channel (rate slots and 429 pauses). */
  senderPacing: 'sender_pacing',
} as const;

/** JetStream object store buckets of the platform (logical names; see Topology.objectBucket). */
export const OBJECT_BUCKETS = {
  /** The files customers sent (inbound media), fetched from the channels by the gateway (docs/conversations.md). */
  inboundMedia: 'inbound_media',
} as const;

/**
 * Every stream, consumer and subject name, derived from one optional prefix. Production runs with
 * no prefix; each test suite gets its own so that suites share one NATS server without touching
 * each other. Nobody spells a subject by hand: they all come from here.
 */
export class Topology {
  readonly prefix: string;

  constructor(prefix = '') {
    if (!/^[a-z0-9_]*$/.test(prefix)) throw new Error(`invalid NATS prefix "${prefix}"`);
    this.prefix = prefix;
  }

  /** A subject under the prefix: `p.outbound.service.whatsapp`. */
  subject(...tokens: string[]): string {
    return [this.prefix, ...tokens].filter(Boolean).join('.');
  }

  stream(key: StreamKey): string {
    return this.prefix ? `${this.prefix.toUpperCase()}_${STREAMS[key]}` : STREAMS[key];
  }

  /** A Key-Value bucket name under the prefix, upper-cased like the streams: `T1_DELIVERY_STATE`. */
  kvBucket(name: string): string {
    if (!/^[a-z0-9_]+$/i.test(name)) throw new Error(`invalid bucket name "${name}"`);
    return (this.prefix ? `${this.prefix}_${name}` : name).toUpperCase();
  }

  /** An object store bucket name under the prefix, upper-cased like the Key-Value buckets. */
  objectBucket(name: string): string {
    return this.kvBucket(name);
  }

  /** The gateway's durable consumer of EVENTS that fetches each inbound message's file into the media store. */
  mediaConsumer(): string {
    return 'media_gateway';
  }

  outboundStream(priority: Priority): string {
    return this.stream(priority === 'service' ? 'outboundService' : 'outboundMarketing');
  }

  outboundSubject(priority: Priority, channel: Channel): string {
    return this.subject('outbound', priority, channel);
  }

  /** Every outbound subject of one channel, both priorities (wakes a worker on new work). */
  outboundWildcard(channel: Channel): string {
    return this.subject('outbound', '*', channel);
  }

  outboundConsumer(priority: Priority, channel: Channel): string {
    return `${priority}_${channel}`;
  }

  eventSubject(type: EventType): string {
    return this.subject('events', type);
  }

  eventsWildcard(): string {
    return this.subject('events', '>');
  }

  eventConsumer(service: EventConsumer): string {
    return `events_${service}`;
  }

  /** Verified channel callbacks waiting for their owner to be resolved (the gateway's relay). */
  inboundSubject(channel: Channel): string {
    return this.subject('inbound', channel);
  }

  /** Opens of the gateway's tracking pixel waiting to be recorded (on the INBOUND stream, relayed by the same consumer). */
  pixelOpenSubject(): string {
    return this.subject('inbound', 'pixel');
  }

  /** People's clicks of campaigns' tracked links waiting to be recorded (on the INBOUND stream, the same relay). */
  linkClickSubject(): string {
    return this.subject('inbound', 'link');
  }

  /** Account signals of a channel's callbacks (quality, limit, restriction), relayed to the api in order. */
  inboundSignalSubject(channel: Channel): string {
    return this.subject('inbound', channel, 'signals');
  }

  inboundConsumer(): string {
    return 'inbound_gateway';
  }

  deadLetterSubject(stream: string, consumer: string): string {
    return this.subject('dlq', stream, consumer);
  }

  /** Subjects a stream listens on. */
  streamSubjects(key: StreamKey): string[] {
    switch (key) {
      case 'outboundService':
        return [this.subject('outbound', 'service', '>')];
      case 'outboundMarketing':
        return [this.subject('outbound', 'marketing', '>')];
      case 'events':
        return [this.eventsWildcard()];
      case 'deadLetter':
        return [this.subject('dlq', '>')];
      case 'inbound':
        return [this.subject('inbound', '>')];
    }
  }

  /** A request/reply subject served through the @nestjs/microservices NATS transport. */
  rpc(pattern: string): string {
    return this.subject(pattern);
  }

  channels(): readonly Channel[] {
    return CHANNELS;
  }
}
