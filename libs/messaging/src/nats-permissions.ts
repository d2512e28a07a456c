import {
  APPS_RPC,
  CAMPAIGNS_RPC,
  CONSENT_RPC,
  GATEWAY_ACCOUNT_RPC,
  GATEWAY_MESSAGES_RPC,
  GATEWAY_TEMPLATES_RPC,
  Channel,
  CHANNELS,
  EventConsumer,
  EVENT_TYPES,
  EventType,
  KV_BUCKETS,
  MEDIA_RPC,
  OBJECT_BUCKETS,
  Priority,
  STREAMS,
  SUBSCRIPTIONS_RPC,
  Topology,
  WHATSAPP_RPC,
} from '@app/contracts';
import { randomBytes } from 'node:crypto';
import { deliveryStateBucket } from './delivery-state';
import { natsInboxPrefix } from './nats-connection';

/**
 * Who may publish and subscribe to what on NATS, derived from the Topology so that no subject is
 * spelled by hand. One user per service; `queue_<channel>` users are the per-channel queue
 * Deployments, `queue` the all-channel worker of the local stack and docker compose, `setup` the
 * deploy step that declares streams, consumers and buckets (the only user with the whole JetStream API).
 *
 * Request/reply trust follows from publish rights: only the api may publish the webhooks service's
 * subscription requests (which carry the tenant's user_id) and the gateway's template requests;
 * only the gateway may ask the api which tenant owns a connection. Each user subscribes to its own
 * inbox only (natsInboxPrefix), so the answers to one service's requests reach no other.
 */
export interface NatsPermissions {
  publish: string[];
  subscribe: string[];
}

export type NatsServiceUser = 'api' | 'gateway' | 'webhooks' | 'queue' | `queue_${Channel}` | 'setup';

/** The event types each service publishes to the EVENTS stream. */
const EVENT_PUBLISHERS: Record<'api' | 'gateway' | 'webhooks' | 'queue', readonly EventType[]> = {
  // message.failed: the receipt reconciler ends messages that never got a final status;
  // template.updated: the template sync found a category the channel changed without a callback;
  // contact.*: consent changes the api records (keywords, channel signals, the consent API);
  // campaign.*: the campaign runner's and the campaigns' state changes.
  api: [
    'app.updated',
    'template.status_changed',
    'template.updated',
    'message.failed',
    'contact.opted_out',
    'contact.opted_in',
    'campaign.started',
    'campaign.paused',
    'campaign.resumed',
    'campaign.cancelled',
    'campaign.completed',
  ],
  // Every message status and inbound message comes in through the gateway's channel callbacks;
  // conversation.*: the gateway keeps the conversations.
  gateway: [
    ...EVENT_TYPES.filter((e) => e.startsWith('message.') || e.startsWith('conversation.')),
    'template.status_changed',
    'template.updated',
  ],
  queue: ['message.sent', 'message.delivered', 'message.failed'],
  webhooks: ['endpoint.disabled'],
};

const PRIORITIES: readonly Priority[] = ['service', 'marketing'];

const rpcSubjects = (t: Topology, patterns: Record<string, string>): string[] =>
  Object.values(patterns).map((p) => t.rpc(p));

/** Pulling, acking and dead-lettering from one durable consumer. */
function consumerRights(t: Topology, stream: string, consumer: string): NatsPermissions {
  return {
    publish: [
      `$JS.API.CONSUMER.INFO.${stream}.${consumer}`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.${consumer}`,
      `$JS.ACK.${stream}.${consumer}.>`,
      t.deadLetterSubject(stream, consumer),
    ],
    subscribe: [],
  };
}

function eventConsumerRights(t: Topology, service: EventConsumer): NatsPermissions {
  const own = consumerRights(t, t.stream('events'), t.eventConsumer(service));
  // The runner listens on the stream's subjects only to wake up when new work arrives.
  return { publish: own.publish, subscribe: [t.eventsWildcard()] };
}

/** Reading and writing one Key-Value bucket (the delivery state, the senders' shared pacing). */
function bucketRights(bucket: string): NatsPermissions {
  return {
    publish: [
      `$KV.${bucket}.>`,
      `$JS.API.STREAM.INFO.KV_${bucket}`,
      `$JS.API.STREAM.MSG.GET.KV_${bucket}`,
      `$JS.API.DIRECT.GET.KV_${bucket}.>`,
    ],
    subscribe: [],
  };
}

/** An object store bucket's files: written in chunks, read through an ordered consumer, purged when deleted. */
function objectBucketRights(bucket: string): NatsPermissions {
  const stream = `OBJ_${bucket}`;
  return {
    publish: [
      `$O.${bucket}.>`,
      `$JS.API.STREAM.INFO.${stream}`,
      `$JS.API.STREAM.MSG.GET.${stream}`,
      `$JS.API.DIRECT.GET.${stream}.>`,
      `$JS.API.STREAM.PURGE.${stream}`,
      `$JS.API.CONSUMER.CREATE.${stream}`,
      `$JS.API.CONSUMER.CREATE.${stream}.>`,
      `$JS.API.CONSUMER.DELETE.${stream}.>`,
      `$JS.API.CONSUMER.INFO.${stream}.>`,
    ],
    subscribe: [],
  };
}

/** Reading an object store bucket's files (an ordered consumer per read), never writing or purging them. */
function objectBucketReadRights(bucket: string): NatsPermissions {
  const all = objectBucketRights(bucket);
  return { publish: all.publish.filter((p) => !p.startsWith('$O.') && !p.includes('.PURGE.')), subscribe: [] };
}

function queueRights(t: Topology, channels: readonly Channel[]): NatsPermissions {
  return merge(
    {
      // Media library files: each sender's handle asked of the gateway, the file read from the store (docs/media.md).
      publish: [...EVENT_PUBLISHERS.queue.map((e) => t.eventSubject(e)), ...rpcSubjects(t, MEDIA_RPC)],
      subscribe: channels.map((c) => t.outboundWildcard(c)),
    },
    bucketRights(deliveryStateBucket(t)),
    bucketRights(t.kvBucket(KV_BUCKETS.senderPacing)),
    objectBucketReadRights(t.objectBucket(OBJECT_BUCKETS.inboundMedia)),
    // A dead-lettered work item is erased from its outbound stream with its content.
    { publish: PRIORITIES.map((p) => `$JS.API.STREAM.MSG.DELETE.${t.outboundStream(p)}`), subscribe: [] },
    ...channels.flatMap((c) => PRIORITIES.map((p) => consumerRights(t, t.outboundStream(p), t.outboundConsumer(p, c)))),
  );
}

/** Every connection may reach the JetStream API's account info. */
const BASE_PUBLISH = ['$JS.API.INFO'];

const uniq = (xs: string[]) => [...new Set(xs)];

function merge(...parts: NatsPermissions[]): NatsPermissions {
  return {
    publish: uniq([...BASE_PUBLISH, ...parts.flatMap((p) => p.publish)]),
    subscribe: uniq(parts.flatMap((p) => p.subscribe)),
  };
}

/** Every reply subject of a user's connections: its RPC answers, JetStream API answers, pulled messages. */
export function natsInboxWildcard(t: Topology, user: NatsServiceUser): string {
  return `${natsInboxPrefix(t, user)}.>`;
}

/**
 * The inbox every client shared before each user had its own. Only the authorization of a roll
 * from such a release allows it (`pnpm nats:auth --roll-values`), for the old pods until they are
 * replaced; docs/security-deployment.md says when.
 */
const SHARED_INBOX = '_INBOX.>';

/** The permissions of every service user under one topology prefix. */
export function natsPermissions(t: Topology): Record<NatsServiceUser, NatsPermissions> {
  const streamInfo = (key: keyof typeof STREAMS) => `$JS.API.STREAM.INFO.${t.stream(key)}`;
  const events = (service: keyof typeof EVENT_PUBLISHERS) => EVENT_PUBLISHERS[service].map((e) => t.eventSubject(e));
  const perChannel = Object.fromEntries(CHANNELS.map((c) => [`queue_${c}`, queueRights(t, [c])])) as Record<
    `queue_${Channel}`,
    NatsPermissions
  >;
  const rights: Record<NatsServiceUser, NatsPermissions> = {
    api: merge(
      {
        publish: [
          ...events('api'),
          ...PRIORITIES.flatMap((p) => CHANNELS.map((c) => t.outboundSubject(p, c))),
          streamInfo('outboundService'),
          streamInfo('outboundMarketing'),
          ...rpcSubjects(t, SUBSCRIPTIONS_RPC),
          ...rpcSubjects(t, WHATSAPP_RPC),
        ],
        subscribe: [
          ...rpcSubjects(t, APPS_RPC),
          ...rpcSubjects(t, GATEWAY_MESSAGES_RPC),
          ...rpcSubjects(t, CONSENT_RPC),
          ...rpcSubjects(t, CAMPAIGNS_RPC),
          ...rpcSubjects(t, GATEWAY_TEMPLATES_RPC),
          ...rpcSubjects(t, GATEWAY_ACCOUNT_RPC),
        ],
      },
      eventConsumerRights(t, 'api'),
      // A message failed before the queue sent it is marked withdrawn there (docs/queue.md).
      bucketRights(deliveryStateBucket(t)),
    ),
    gateway: merge(
      {
        publish: [
          ...events('gateway'),
          ...t.streamSubjects('inbound'),
          ...rpcSubjects(t, APPS_RPC),
          ...rpcSubjects(t, GATEWAY_MESSAGES_RPC),
          ...rpcSubjects(t, CONSENT_RPC),
          ...rpcSubjects(t, CAMPAIGNS_RPC),
          ...rpcSubjects(t, GATEWAY_TEMPLATES_RPC),
          ...rpcSubjects(t, GATEWAY_ACCOUNT_RPC),
        ],
        // The relay listens on its stream's subjects to wake up when a callback arrives.
        subscribe: [...rpcSubjects(t, WHATSAPP_RPC), ...rpcSubjects(t, MEDIA_RPC), ...t.streamSubjects('inbound')],
      },
      eventConsumerRights(t, 'gateway'),
      consumerRights(t, t.stream('inbound'), t.inboundConsumer()),
      bucketRights(deliveryStateBucket(t)),
      // Inbound media: fetched off its own consumer of EVENTS into the object store (docs/conversations.md).
      consumerRights(t, t.stream('events'), t.mediaConsumer()),
      objectBucketRights(t.objectBucket(OBJECT_BUCKETS.inboundMedia)),
    ),
    webhooks: merge(
      { publish: events('webhooks'), subscribe: rpcSubjects(t, SUBSCRIPTIONS_RPC) },
      eventConsumerRights(t, 'webhooks'),
    ),
    queue: queueRights(t, CHANNELS),
    ...perChannel,
    setup: merge({ publish: ['$JS.API.>'], subscribe: [] }),
  };
  return Object.fromEntries(
    natsUsers().map((u) => [u, { ...rights[u], subscribe: [natsInboxWildcard(t, u), ...rights[u].subscribe] }]),
  ) as Record<NatsServiceUser, NatsPermissions>;
}

/** The users of the generated configuration, in a stable order. */
export function natsUsers(): NatsServiceUser[] {
  return ['api', 'gateway', 'webhooks', 'queue', ...CHANNELS.map((c) => `queue_${c}` as const), 'setup'];
}

/** The environment variable that carries a user's password to nats-server (`$NATS_PASSWORD_API`). */
export function natsPasswordVariable(user: NatsServiceUser): string {
  return `NATS_PASSWORD_${user.toUpperCase()}`;
}

export interface NatsAuthorizationUser {
  user: NatsServiceUser;
  password: string;
  permissions: { publish: { allow: string[] }; subscribe: { allow: string[] }; allow_responses: boolean };
}

export interface NatsAuthorizationOptions {
  /** Also allow every user the shared inbox (SHARED_INBOX): only while old pods are replaced. */
  sharedInbox?: boolean;
}

/**
 * The nats-server `authorization` users. Passwords are never in it: `password` names where each
 * comes from (a variable nats-server resolves from its own environment: a Kubernetes Secret, or
 * the random passwords `pnpm stack` makes). Replies to requests are allowed for one response
 * (`allow_responses`), so a service answers RPCs into the caller's own inbox without publish
 * rights on anyone's inbox.
 */
export function natsAuthorization(
  t: Topology,
  password: (variable: string) => string = (v) => `$${v}`,
  opts: NatsAuthorizationOptions = {},
): { users: NatsAuthorizationUser[] } {
  const perms = natsPermissions(t);
  return {
    users: natsUsers().map((user) => ({
      user,
      password: password(natsPasswordVariable(user)),
      permissions: {
        publish: { allow: perms[user].publish },
        subscribe: { allow: opts.sharedInbox ? uniq([...perms[user].subscribe, SHARED_INBOX]) : perms[user].subscribe },
        allow_responses: true,
      },
    })),
  };
}

const quote = (s: string) => JSON.stringify(s);

/** The same authorization as nats-server configuration text (`nats-server -c`). */
export function natsAuthorizationConfig(t: Topology): string {
  const lines = ['authorization {', '  users = ['];
  for (const u of natsAuthorization(t).users) {
    lines.push(
      '    {',
      `      user: ${quote(u.user)}`,
      `      password: ${u.password}`,
      '      permissions: {',
      `        publish: { allow: [${u.permissions.publish.allow.map(quote).join(', ')}] }`,
      `        subscribe: { allow: [${u.permissions.subscribe.allow.map(quote).join(', ')}] }`,
      '        allow_responses: true',
      '      }',
      '    }',
    );
  }
  lines.push('  ]', '}');
  return `${lines.join('\n')}\n`;
}

/**
 * A password nats-server can take from an environment variable: the server reads the variable's
 * value as configuration, so one that starts with a digit or `-` is lexed as a number ("49e4...",
 * "2g3g..." fail to parse and the server does not start). A letter first, then 192 random bits in
 * hex: always read as a plain string.
 */
export function randomNatsPassword(): string {
  return `p${randomBytes(24).toString('hex')}`;
}

/** Fresh random passwords for every user (the local stack makes new ones at each start). */
export function randomNatsPasswords(): Record<NatsServiceUser, string> {
  return Object.fromEntries(natsUsers().map((u) => [u, randomNatsPassword()])) as Record<NatsServiceUser, string>;
}

/** The environment nats-server needs to resolve the password variables of the configuration. */
export function natsServerEnv(passwords: Record<NatsServiceUser, string>): Record<string, string> {
  return Object.fromEntries(natsUsers().map((u) => [natsPasswordVariable(u), passwords[u]]));
}
