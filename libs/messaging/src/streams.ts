import {
  AckPolicy,
  ConsumerConfig,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiError,
  JetStreamManager,
  RetentionPolicy,
  StorageType,
  StreamConfig,
} from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { nanos } from '@nats-io/nats-core';
import { Objm } from '@nats-io/obj';
import { CHANNELS, EVENT_CONSUMERS, KV_BUCKETS, OBJECT_BUCKETS, Priority, StreamKey, Topology } from '@app/contracts';
import { DELIVERY_STATE_TTL_MS, deliveryStateBucket } from './delivery-state';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface TopologyOptions {
  /** Window in which a repeated Nats-Msg-Id is dropped as a duplicate. */
  duplicateWindowMs: number;
  /** How long a consumer waits for an ack before redelivering. */
  ackWaitMs: number;
  /** Deliveries of one outbound message before it is dead-lettered. */
  outboundMaxDeliver: number;
  /** Deliveries of one event to one consuming service before it is dead-lettered. */
  eventsMaxDeliver: number;
  /**
   * Deliveries of one verified channel callback to the gateway's relay before it is dead-lettered:
   * enough to wait out an outage of the api of about 14 hours at the relay's 5-second back-off.
   */
  inboundMaxDeliver: number;
  /** File storage in production; memory storage is allowed for throwaway test servers. */
  storage: 'file' | 'memory';
  replicas: number;
}

export const DEFAULT_TOPOLOGY_OPTIONS: TopologyOptions = {
  duplicateWindowMs: 2 * 60 * 1000,
  ackWaitMs: 30_000,
  outboundMaxDeliver: 10,
  eventsMaxDeliver: 20,
  inboundMaxDeliver: 10_000,
  storage: 'file',
  replicas: 1,
};

export interface StreamDeclaration {
  key: StreamKey;
  config: Partial<StreamConfig> & { name: string; subjects: string[] };
}

export interface ConsumerDeclaration {
  stream: string;
  config: Partial<ConsumerConfig> & { durable_name: string };
}

/** The one declaration of every stream (docs/architecture.md, Streams). */
export function declareStreams(t: Topology, o: TopologyOptions = DEFAULT_TOPOLOGY_OPTIONS): StreamDeclaration[] {
  const base = {
    storage: o.storage === 'memory' ? StorageType.Memory : StorageType.File,
    num_replicas: o.replicas,
    duplicate_window: nanos(o.duplicateWindowMs),
    discard: DiscardPolicy.Old,
  };
  const outbound = (key: StreamKey) => ({
    key,
    config: {
      ...base,
      name: t.stream(key),
      subjects: t.streamSubjects(key),
      retention: RetentionPolicy.Workqueue,
      // A message nobody could deliver in a week is dead; keep the stream bounded.
      max_age: nanos(7 * DAY_MS),
      discard: DiscardPolicy.New,
    },
  });
  return [
    outbound('outboundService'),
    outbound('outboundMarketing'),
    {
      key: 'events',
      config: {
        ...base,
        name: t.stream('events'),
        subjects: t.streamSubjects('events'),
        retention: RetentionPolicy.Limits,
        max_age: nanos(7 * DAY_MS),
      },
    },
    {
      // Verified callbacks until their owner is known: removed once relayed to EVENTS.
      key: 'inbound',
      config: {
        ...base,
        name: t.stream('inbound'),
        subjects: t.streamSubjects('inbound'),
        retention: RetentionPolicy.Workqueue,
        max_age: nanos(7 * DAY_MS),
      },
    },
    {
      key: 'deadLetter',
      config: {
        ...base,
        name: t.stream('deadLetter'),
        subjects: t.streamSubjects('deadLetter'),
        retention: RetentionPolicy.Limits,
        max_age: nanos(14 * DAY_MS),
      },
    },
  ];
}

/**
 * A message that waits on the stream for its sender's turn (nak'ed with a delay, docs/queue.md) is
 * pending on its consumer all along, and a consumer at its max_ack_pending delivers nothing more:
 * every other sender's message would wait behind one sender's backlog again. So an outbound
 * consumer may have this many pending: a backlog of a million messages per channel and lane.
 */
export const OUTBOUND_MAX_ACK_PENDING = 1_000_000;

/** One durable pull consumer per channel and outbound stream, one per event-consuming service. */
export function declareConsumers(t: Topology, o: TopologyOptions = DEFAULT_TOPOLOGY_OPTIONS): ConsumerDeclaration[] {
  const common = {
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(o.ackWaitMs),
    max_ack_pending: 10_000,
  };
  const outbound: ConsumerDeclaration[] = CHANNELS.flatMap((channel) =>
    (['service', 'marketing'] as Priority[]).map((priority) => ({
      stream: t.outboundStream(priority),
      config: {
        ...common,
        durable_name: t.outboundConsumer(priority, channel),
        filter_subject: t.outboundSubject(priority, channel),
        max_deliver: o.outboundMaxDeliver,
        max_ack_pending: OUTBOUND_MAX_ACK_PENDING,
      },
    })),
  );
  const events: ConsumerDeclaration[] = EVENT_CONSUMERS.map((service) => ({
    stream: t.stream('events'),
    config: {
      ...common,
      durable_name: t.eventConsumer(service),
      filter_subject: t.eventsWildcard(),
      max_deliver: o.eventsMaxDeliver,
    },
  }));
  const inbound: ConsumerDeclaration = {
    stream: t.stream('inbound'),
    config: {
      ...common,
      durable_name: t.inboundConsumer(),
      filter_subject: t.streamSubjects('inbound')[0],
      max_deliver: o.inboundMaxDeliver,
    },
  };
  // The gateway's media fetches: only new conversation messages, each file fetched while others wait.
  const media: ConsumerDeclaration = {
    stream: t.stream('events'),
    config: {
      ...common,
      durable_name: t.mediaConsumer(),
      filter_subject: t.eventSubject('conversation.message.created'),
      max_deliver: o.eventsMaxDeliver,
      ack_wait: nanos(Math.max(o.ackWaitMs, MEDIA_ACK_WAIT_MS)),
    },
  };
  return [...outbound, ...events, inbound, media];
}

/** A media fetch may stream a large file: it has this long before JetStream hands it to another replica. */
export const MEDIA_ACK_WAIT_MS = 5 * 60 * 1000;

/** Object store buckets: the files customers sent, kept until deleted (no age limit; the bucket's size may cap it). */
export function declareObjectBuckets(t: Topology): { name: string }[] {
  return [{ name: t.objectBucket(OBJECT_BUCKETS.inboundMedia) }];
}

export interface BucketDeclaration {
  /** The bucket name (its stream is `KV_<name>`). */
  name: string;
  /** How long a key lives after its last write. */
  ttlMs: number;
}

/** A sender's pacing state is only worth keeping while it sends: an hour after its last message it starts afresh. */
export const SENDER_PACING_TTL_MS = 60 * 60 * 1000;

/** The Key-Value buckets (delivery state of outbound messages, shared pacing of senders). */
export function declareBuckets(t: Topology): BucketDeclaration[] {
  return [
    { name: deliveryStateBucket(t), ttlMs: DELIVERY_STATE_TTL_MS },
    { name: t.kvBucket(KV_BUCKETS.senderPacing), ttlMs: SENDER_PACING_TTL_MS },
  ];
}

function isNotFound(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.status === 404;
}

export interface SetupReport {
  streams: { name: string; action: 'created' | 'updated' }[];
  consumers: { stream: string; name: string; action: 'created' | 'updated' }[];
  buckets: { name: string; action: 'created' | 'exists' }[];
}

/** Creates or updates every stream and consumer, and creates the buckets. Safe to run any number of times. */
export async function setupTopology(
  jsm: JetStreamManager,
  t: Topology,
  o: TopologyOptions = DEFAULT_TOPOLOGY_OPTIONS,
): Promise<SetupReport> {
  const report: SetupReport = { streams: [], consumers: [], buckets: [] };
  for (const { config } of declareStreams(t, o)) {
    try {
      await jsm.streams.info(config.name);
      await jsm.streams.update(config.name, config);
      report.streams.push({ name: config.name, action: 'updated' });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await jsm.streams.add(config);
      report.streams.push({ name: config.name, action: 'created' });
    }
  }
  for (const { stream, config } of declareConsumers(t, o)) {
    try {
      await jsm.consumers.info(stream, config.durable_name);
      await jsm.consumers.update(stream, config.durable_name, config);
      report.consumers.push({ stream, name: config.durable_name, action: 'updated' });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await jsm.consumers.add(stream, config);
      report.consumers.push({ stream, name: config.durable_name, action: 'created' });
    }
  }
  const kvm = new Kvm(jsm.jetstream());
  for (const b of declareBuckets(t)) {
    let exists = true;
    try {
      await jsm.streams.info(`KV_${b.name}`);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      exists = false;
    }
    // Read-after-write matters more than read speed here: no direct (replica) reads.
    await kvm.create(b.name, {
      history: 1,
      ttl: b.ttlMs,
      storage: o.storage === 'memory' ? StorageType.Memory : StorageType.File,
      replicas: o.replicas,
      allow_direct: false,
    });
    report.buckets.push({ name: b.name, action: exists ? 'exists' : 'created' });
  }
  const objm = new Objm(jsm.jetstream());
  for (const b of declareObjectBuckets(t)) {
    let exists = true;
    try {
      await jsm.streams.info(`OBJ_${b.name}`);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      exists = false;
    }
    if (!exists) {
      await objm.create(b.name, {
        storage: o.storage === 'memory' ? StorageType.Memory : StorageType.File,
        replicas: o.replicas,
      });
    }
    report.buckets.push({ name: b.name, action: exists ? 'exists' : 'created' });
  }
  return report;
}

/** Deletes every stream and bucket of a topology (test teardown). */
export async function deleteTopology(jsm: JetStreamManager, t: Topology): Promise<void> {
  const names = [
    ...declareStreams(t).map((d) => d.config.name),
    ...declareBuckets(t).map((b) => `KV_${b.name}`),
    ...declareObjectBuckets(t).map((b) => `OBJ_${b.name}`),
  ];
  for (const name of names) {
    try {
      await jsm.streams.delete(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
