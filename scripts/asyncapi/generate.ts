import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGenerator } from 'ts-json-schema-generator';
import {
  CHANNELS,
  DEAD_LETTERED,
  EVENT_CONSUMERS,
  EVENT_TYPES,
  EventType,
  Priority,
  StreamKey,
  Topology,
} from '@app/contracts';
import {
  ConsumerDeclaration,
  declareConsumers,
  declareStreams,
  DEFAULT_TOPOLOGY_OPTIONS,
  natsInboxPrefix,
  natsPermissions,
  NatsServiceUser,
  natsUsers,
} from '@app/messaging';

const ROOT = join(__dirname, '..', '..');

/** Where `pnpm asyncapi` writes the document (JSON: any language reads it without a YAML library). */
export const ASYNCAPI_PATH = join(ROOT, 'docs', 'asyncapi.json');

type Json = Record<string, unknown>;

const NANOS_PER_MS = 1_000_000;
const ms = (nanos: number | undefined) => (nanos === undefined ? undefined : nanos / NANOS_PER_MS);
const PRIORITIES: readonly Priority[] = ['service', 'marketing'];
/** The users the document names as publishers and consumers: every service, never the setup step. */
const SERVICE_USERS = natsUsers().filter((u): u is Exclude<NatsServiceUser, 'setup'> => u !== 'setup');

/** Whether a NATS subject pattern (`*` one token, `>` the rest) covers a subject. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

/** An identifier usable as a component or channel key: `outbound.service.whatsapp` -> `outboundServiceWhatsapp`. */
function key(...parts: string[]): string {
  const words = parts
    .join('.')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
}

/** The contract types as JSON Schema, definitions referenced under components.schemas. */
function contractSchemas(types: string[]): Record<string, Json> {
  const generator = createGenerator({
    path: join(ROOT, 'libs', 'contracts', 'src', 'index.ts'),
    tsconfig: join(ROOT, 'tsconfig.base.json'),
    expose: 'export',
    skipTypeCheck: true,
    topRef: false,
    jsDoc: 'extended',
    additionalProperties: false,
    sortProps: true,
  });
  const out: Record<string, Json> = {};
  for (const type of types) {
    const {
      definitions,
      $schema: _draft,
      ...schema
    } = generator.createSchema(type) as Json & {
      definitions?: Record<string, Json>;
    };
    out[type] = schema;
    for (const [name, def] of Object.entries(definitions ?? {})) out[name] = def;
  }
  const moved = JSON.stringify(out).replace(/"#\/definitions\//g, '"#/components/schemas/');
  return JSON.parse(moved) as Record<string, Json>;
}

/** The JSON Schema of each event type as published for webhook subscribers (docs/events). */
function eventSchema(type: string): Json {
  const file = join(ROOT, 'docs', 'events', `${type}.schema.json`);
  const { $schema: _draft, $id: _id, ...schema } = JSON.parse(readFileSync(file, 'utf8')) as Json;
  // On NATS the envelope also names its tenant, which webhook bodies strip.
  const properties = { ...(schema.properties as Json), user_id: userIdSchema };
  return { ...schema, properties };
}

const userIdSchema = {
  type: ['string', 'null'],
  description: 'The tenant (user) the event belongs to: present on NATS, stripped from webhook bodies.',
};

const msgIdHeader = (description: string): Json => ({
  type: 'object',
  required: ['Nats-Msg-Id'],
  properties: { 'Nats-Msg-Id': { type: 'string', description } },
});

/** Who may publish to a subject, and who pulls from a durable consumer, by the NATS permissions. */
function usersWho(perms: ReturnType<typeof natsPermissions>, right: 'publish' | 'subscribe', subject: string) {
  return SERVICE_USERS.filter((u) => perms[u][right].some((p) => subjectMatches(p, subject)));
}

/**
 * The AsyncAPI 3.0 document of the platform's NATS surface, from the topology (every subject, stream
 * and consumer), the stream and consumer declarations `pnpm nats:setup` applies, the NATS
 * permissions `pnpm nats:auth` generates (who publishes and who consumes) and the contracts' types.
 * Deterministic: the same sources always give the same document.
 */
export function buildAsyncApiDocument(): Json {
  const t = new Topology();
  const perms = natsPermissions(t);
  const streams = declareStreams(t);
  const consumers = declareConsumers(t);
  const streamOf = (k: StreamKey) => streams.find((s) => s.key === k)!.config;
  const channels: Json = {};
  const operations: Json = {};
  const messages: Json = {};

  const streamExtension = (k: StreamKey): Json => {
    const c = streamOf(k);
    return {
      name: c.name,
      subjects: c.subjects,
      retention: c.retention,
      discard: c.discard,
      max_age_ms: ms(c.max_age),
      duplicate_window_ms: ms(c.duplicate_window),
    };
  };
  const consumerExtension = (c: ConsumerDeclaration, settlement: Json): Json => ({
    durable_name: c.config.durable_name,
    stream: c.stream,
    filter_subject: c.config.filter_subject,
    deliver_policy: c.config.deliver_policy,
    ack_policy: c.config.ack_policy,
    ack_wait_ms: ms(c.config.ack_wait),
    max_deliver: c.config.max_deliver,
    max_ack_pending: c.config.max_ack_pending,
    pulled_by: SERVICE_USERS.filter((u) =>
      perms[u].publish.includes(`$JS.API.CONSUMER.MSG.NEXT.${c.stream}.${c.config.durable_name}`),
    ),
    dead_letter: t.deadLetterSubject(c.stream, c.config.durable_name),
    settlement,
  });

  /** A stream subject: its channel, who publishes (send) and who consumes through which durable (receive). */
  const streamChannel = (opts: {
    id: string;
    address: string;
    stream: StreamKey;
    message: string;
    description: string;
    consumers: ConsumerDeclaration[];
    settlement: Json;
    parameters?: Json;
  }) => {
    channels[opts.id] = {
      address: opts.address,
      description: opts.description,
      ...(opts.parameters ? { parameters: opts.parameters } : {}),
      messages: { [opts.message]: { $ref: `#/components/messages/${opts.message}` } },
      'x-stream': streamExtension(opts.stream),
    };
    const ref = { $ref: `#/channels/${opts.id}` };
    const msgRef = [{ $ref: `#/channels/${opts.id}/messages/${opts.message}` }];
    operations[`publish${opts.id[0].toUpperCase()}${opts.id.slice(1)}`] = {
      action: 'send',
      channel: ref,
      messages: msgRef,
      summary: `Published to ${opts.address} (JetStream, acknowledged by the server).`,
      'x-published-by': usersWho(perms, 'publish', opts.address),
    };
    for (const c of opts.consumers) {
      operations[key('consume', c.config.durable_name, opts.id)] = {
        action: 'receive',
        channel: ref,
        messages: msgRef,
        summary: `Pulled from the durable consumer ${c.config.durable_name} of ${c.stream}.`,
        'x-consumer': consumerExtension(c, opts.settlement),
      };
    }
  };

  // Outbound work: one subject per lane and channel.
  messages.OutboundMessage = {
    name: 'OutboundMessage',
    title: 'An outbound message to deliver',
    summary: 'Everything needed to deliver one message; the only place its content lives until it is acked.',
    headers: msgIdHeader('The message id: a repeated publish inside the duplicate window is stored once.'),
    payload: { $ref: '#/components/schemas/OutboundMessage' },
  };
  const outboundSettlement = {
    reports: ['message.sent', 'message.failed', 'message.delivered'].map((type) => t.eventSubject(type as EventType)),
    report_event_id: 'evt_ + the first 32 hex digits of SHA-256("<message id>:sent") (":failed", ":delivered")',
    ack: 'after the outcome event is stored in EVENTS (the publish acknowledged)',
    nak: "a refusal for now: with a delay (the channel's Retry-After, else a backoff doubling per delivery)",
    in_progress: '+WPI before ack_wait runs out while the message is still in hand',
    final_refusal: `publish message.failed (error.code the channel's code, error.title why), then ack`,
    dead_letter: `on the last allowed delivery (or an unreadable work item): DeadLetteredOutbound to the dead letter subject, message.failed with error.code "${DEAD_LETTERED}", erase the work item from its stream, then term`,
  };
  for (const priority of PRIORITIES) {
    for (const channel of CHANNELS) {
      const address = t.outboundSubject(priority, channel);
      streamChannel({
        id: key(address),
        address,
        stream: priority === 'service' ? 'outboundService' : 'outboundMarketing',
        message: 'OutboundMessage',
        description: `${priority === 'service' ? 'Service' : 'Marketing'} lane of the ${channel} channel: work waiting to be delivered.`,
        consumers: consumers.filter((c) => c.config.durable_name === t.outboundConsumer(priority, channel)),
        settlement: outboundSettlement,
      });
    }
  }

  // Events: one subject per type, consumed by every reacting service.
  const eventConsumers = consumers.filter((c) =>
    EVENT_CONSUMERS.some((s) => c.config.durable_name === t.eventConsumer(s)),
  );
  const eventSettlement = {
    ack: 'after the service applied the message (handlers are idempotent: any message may come twice)',
    nak: 'an unexpected error or a transient failure, with exponential backoff (never term)',
    dead_letter: 'on the last allowed delivery: a copy to the dead letter subject with the Dlq-* headers, then term',
  };
  for (const type of EVENT_TYPES) {
    const name = key('event', type);
    messages[name] = {
      name: type,
      title: type,
      headers: msgIdHeader('The event id (`evt_...`): a republished outcome is dropped as a duplicate.'),
      payload: { $ref: `#/components/schemas/${name}` },
    };
    const address = t.eventSubject(type);
    streamChannel({
      id: key(address),
      address,
      stream: 'events',
      message: name,
      description: `Events of type ${type} (the envelope subscribers receive by webhook, with its tenant).`,
      consumers: eventConsumers,
      settlement: eventSettlement,
    });
  }

  // Verified channel callbacks waiting for their owner (relayed by the gateway).
  const inboundConsumers = consumers.filter((c) => c.config.durable_name === t.inboundConsumer());
  messages.InboundCallback = {
    name: 'InboundCallback',
    title: 'A verified channel callback, as an event whose owner is not stamped yet',
    headers: msgIdHeader('The event id.'),
    payload: { anyOf: EVENT_TYPES.map((type) => ({ $ref: `#/components/schemas/${key('event', type)}` })) },
  };
  messages.AccountSignal = {
    name: 'AccountSignal',
    title: "An account signal of a channel's callback (quality, limit, restriction)",
    headers: msgIdHeader('The signal id.'),
    payload: { $ref: '#/components/schemas/AppSignal' },
  };
  messages.PixelOpen = {
    name: 'PixelOpen',
    title: "An open of the gateway's tracking pixel",
    headers: msgIdHeader('The open id.'),
    payload: { $ref: '#/components/schemas/PixelOpen' },
  };
  const inbound: { address: string; message: string; description: string }[] = [
    // Only WhatsApp callbacks wait for their owner: bot updates name their connection and go to EVENTS at once.
    {
      address: t.inboundSubject('whatsapp'),
      message: 'InboundCallback',
      description:
        'Verified WhatsApp callbacks waiting for their owner: inbound messages, reactions, template updates, and statuses of connections whose owner the gateway does not remember yet.',
    },
    {
      address: t.inboundSignalSubject('whatsapp'),
      message: 'AccountSignal',
      description: 'WhatsApp account signals, relayed to the api over apps.signals.apply in order.',
    },
    { address: t.pixelOpenSubject(), message: 'PixelOpen', description: 'Tracking pixel opens to record.' },
  ];
  for (const i of inbound) {
    streamChannel({
      id: key(i.address),
      ...i,
      stream: 'inbound',
      consumers: inboundConsumers,
      settlement: eventSettlement,
    });
  }

  // Dead letters: one subject per durable consumer.
  messages.DeadLetteredOutbound = {
    name: 'DeadLetteredOutbound',
    title: 'What is kept of an outbound message the queue gave up on (no content)',
    headers: { $ref: '#/components/schemas/DeadLetterHeaders' },
    payload: { $ref: '#/components/schemas/DeadLetteredOutbound' },
  };
  messages.DeadLetteredCopy = {
    name: 'DeadLetteredCopy',
    title: 'An event or inbound callback given up on, copied as it was',
    headers: { $ref: '#/components/schemas/DeadLetterHeaders' },
    payload: { type: 'object', description: 'The message as it was on its stream (an event envelope, a callback).' },
  };
  for (const c of consumers) {
    const outbound = c.stream === t.stream('outboundService') || c.stream === t.stream('outboundMarketing');
    const address = t.deadLetterSubject(c.stream, c.config.durable_name);
    const id = key(address);
    const message = outbound ? 'DeadLetteredOutbound' : 'DeadLetteredCopy';
    channels[id] = {
      address,
      description: `Messages the consumer ${c.config.durable_name} of ${c.stream} gave up on; read by operators.`,
      messages: { [message]: { $ref: `#/components/messages/${message}` } },
      'x-stream': streamExtension('deadLetter'),
    };
    operations[key('deadLetter', id)] = {
      action: 'send',
      channel: { $ref: `#/channels/${id}` },
      messages: [{ $ref: `#/channels/${id}/messages/${message}` }],
      summary: 'Published on the last allowed delivery, before the original is termed.',
      'x-published-by': usersWho(perms, 'publish', address),
    };
  }

  // Request/reply: the @nestjs/microservices NATS transport.
  const rpcTypes = contractSchemas([
    'RpcMethods',
    'OutboundMessage',
    'DeadLetteredOutbound',
    'RpcProblem',
    'AppSignal',
    'PixelOpen',
  ]);
  const methods = rpcTypes.RpcMethods as {
    properties: Record<string, { properties: { request: Json; result: Json } }>;
  };
  for (const pattern of Object.keys(methods.properties)) {
    const address = t.rpc(pattern);
    const id = key(address);
    const { request, result } = methods.properties[pattern].properties;
    messages[key(id, 'request')] = {
      name: `${pattern} request`,
      payload: {
        type: 'object',
        required: ['pattern', 'data', 'id'],
        properties: { pattern: { const: pattern }, data: request, id: { type: 'string' } },
      },
    };
    messages[key(id, 'reply')] = {
      name: `${pattern} reply`,
      payload: {
        type: 'object',
        required: ['id'],
        properties: {
          id: { type: 'string', description: "The request's id." },
          response: {
            description: 'The result, or the problem that stopped it (RFC 9457 terms).',
            anyOf: [
              { type: 'object', required: ['result'], properties: { result } },
              {
                type: 'object',
                required: ['problem'],
                properties: { problem: { $ref: '#/components/schemas/RpcProblem' } },
              },
            ],
          },
          err: { description: 'An unexpected failure of the responder (answered as a 502 by the caller).' },
          isDisposed: { type: 'boolean' },
        },
      },
    };
    channels[id] = {
      address,
      description: `Request/reply: ${pattern}.`,
      messages: { request: { $ref: `#/components/messages/${key(id, 'request')}` } },
      'x-answered-by': usersWho(perms, 'subscribe', address),
    };
    channels[key(id, 'reply')] = {
      address: null,
      description:
        "The caller's own inbox, given as the request's reply subject: `_INBOX.<caller's NATS user>.<unique>` " +
        '(`x-nats-users.<user>.inbox`; a user may subscribe to no other inbox). The answering service ' +
        'publishes its reply there through `allow_responses`, one reply per request.',
      messages: { reply: { $ref: `#/components/messages/${key(id, 'reply')}` } },
    };
    operations[key('call', id)] = {
      action: 'send',
      channel: { $ref: `#/channels/${id}` },
      messages: [{ $ref: `#/channels/${id}/messages/request` }],
      reply: {
        channel: { $ref: `#/channels/${key(id, 'reply')}` },
        messages: [{ $ref: `#/channels/${key(id, 'reply')}/messages/reply` }],
      },
      'x-called-by': usersWho(perms, 'publish', address),
    };
  }
  delete rpcTypes.RpcMethods;

  const schemas: Json = {
    ...rpcTypes,
    ...Object.fromEntries(EVENT_TYPES.map((type) => [key('event', type), eventSchema(type)])),
    DeadLetterHeaders: {
      type: 'object',
      required: [
        'Nats-Msg-Id',
        'Dlq-Reason',
        'Dlq-Stream',
        'Dlq-Consumer',
        'Dlq-Subject',
        'Dlq-Stream-Seq',
        'Dlq-Deliveries',
      ],
      properties: {
        'Nats-Msg-Id': { type: 'string', description: '`dlq-<stream>-<stream sequence>`.' },
        'Dlq-Reason': { type: 'string', maxLength: 1024 },
        'Dlq-Stream': { type: 'string' },
        'Dlq-Consumer': { type: 'string' },
        'Dlq-Subject': { type: 'string' },
        'Dlq-Stream-Seq': { type: 'string', pattern: '^[0-9]+$' },
        'Dlq-Deliveries': { type: 'string', pattern: '^[0-9]+$' },
      },
    },
  };

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Messaging platform: NATS surface',
      version: '1.0.0',
      description:
        'Every JetStream subject, stream and durable consumer of the platform, its request/reply subjects, ' +
        'who publishes and who consumes, and the settlement rules. Subjects are shown without a prefix ' +
        '(`NATS_PREFIX` puts `<prefix>.` before each subject and `<PREFIX>_` before each stream name, also where ' +
        'a stream name is a token of a dead letter subject: `<prefix>.dlq.<PREFIX>_OUTBOUND_SERVICE.service_whatsapp`). ' +
        'Generated by `pnpm asyncapi`; docs/adapters.md explains how a channel adapter uses it.',
    },
    defaultContentType: 'application/json',
    servers: {
      nats: {
        host: 'nats:4222',
        protocol: 'nats',
        description: 'NATS with JetStream; each service connects with its own user (`pnpm nats:auth`).',
      },
    },
    channels: sortKeys(channels),
    operations: sortKeys(operations),
    components: { messages: sortKeys(messages), schemas: sortKeys(schemas) },
    // `inbox`: the prefix a user's connections must set for their reply subjects (`inboxPrefix`).
    'x-nats-users': Object.fromEntries(SERVICE_USERS.map((u) => [u, { inbox: natsInboxPrefix(t, u), ...perms[u] }])),
    'x-topology-defaults': {
      duplicate_window_ms: DEFAULT_TOPOLOGY_OPTIONS.duplicateWindowMs,
      ack_wait_ms: DEFAULT_TOPOLOGY_OPTIONS.ackWaitMs,
    },
  };
}

function sortKeys(o: Json): Json {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}

/** The errors @asyncapi/parser reports for a document (warnings and hints are not errors). */
export async function validateAsyncApi(text: string): Promise<string[]> {
  const { Parser, DiagnosticSeverity } = await import('@asyncapi/parser');
  const { diagnostics } = await new Parser().parse(text);
  return diagnostics
    .filter((d) => d.severity === DiagnosticSeverity.Error)
    .map((d) => `${d.path.join('.') || '(document)'}: ${d.message}`);
}
