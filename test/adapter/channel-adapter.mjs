// A channel adapter written only against the platform's AsyncAPI document (docs/asyncapi.json) and
// the NATS clients: no platform code. It takes the work of one channel from the queue's durable
// consumers of outbound.<lane>.<channel>, "sends" each message to a pretend provider, and reports
// what became of it on the subjects and in the shapes the document gives (docs/adapters.md).
//
//   ASYNCAPI_PATH   the document                        ADAPTER_CHANNEL  the channel it serves
//   NATS_URL        the server                          NATS_PREFIX      the topology prefix, if any
//   NATS_USER, NATS_PASSWORD                            the channel's queue user (`pnpm nats:auth`)
//
// The pretend provider refuses for good every recipient that ends in REFUSED_SUFFIX ("000") and
// accepts the others, answering a provider id; an accepted message is reported sent, then delivered.
// It writes "ready" on stdout once it is bound to its consumers, and one JSON line per report.

import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/nats-core';
import Ajv from 'ajv';

const REFUSED_SUFFIX = '000';
const env = process.env;
const channel = env.ADAPTER_CHANNEL;
const doc = JSON.parse(readFileSync(env.ASYNCAPI_PATH, 'utf8'));

// The document shows names without a prefix: `<prefix>.` goes before each subject, `<PREFIX>_` before
// each stream (also where a stream's name is a token of a subject: the dead letter subjects).
const prefix = env.NATS_PREFIX ?? '';
const subject = (s) => (prefix ? `${prefix}.${s}` : s);
const stream = (s) => (prefix ? `${prefix.toUpperCase()}_${s}` : s);
const deadLetterSubject = (c) =>
  subject(
    c.dead_letter
      .split('.')
      .map((token) => (token === c.stream ? stream(token) : token))
      .join('.'),
  );

/** Follows a local `$ref` (`#/channels/x/messages/y`), and the one it lands on, to the object. */
function deref(node) {
  let n = node;
  while (n && typeof n.$ref === 'string') {
    n = n.$ref
      .slice(2)
      .split('/')
      .reduce((o, k) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return n;
}

const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(doc, 'asyncapi');
/** A validator for the payload of a message of the document (a `#/components/messages/...` or channel message). */
function payloadValidator(message) {
  return ajv.getSchema(`asyncapi${deref(message).payload.$ref}`);
}
const channelsByAddress = new Map(Object.values(doc.channels).map((c) => [c.address, c]));

// This channel's lanes: the receive operations on outbound.<lane>.<channel> with their durable consumer.
const lanes = Object.values(doc.operations)
  .filter((op) => op.action === 'receive' && op['x-consumer'])
  .map((op) => ({ op, address: deref(op.channel).address, consumer: op['x-consumer'] }))
  .filter(({ address }) => {
    const [root, , ch] = address.split('.');
    return root === 'outbound' && ch === channel;
  });
if (lanes.length === 0) throw new Error(`the document has no outbound lane for channel "${channel}"`);

// The reports a lane makes, by event type: the subject and the validator of its payload.
const reports = Object.fromEntries(
  lanes[0].consumer.settlement.reports.map((address) => {
    const ch = channelsByAddress.get(address);
    const [message] = Object.values(ch.messages);
    return [address.slice('events.'.length), { subject: subject(address), valid: payloadValidator(message) }];
  }),
);
const workItemValid = payloadValidator(lanes[0].op.messages[0]);
const deadLetterValid = (lane) =>
  payloadValidator(Object.values(channelsByAddress.get(lane.consumer.dead_letter).messages)[0]);

/** The event id of a message's report (the document's `report_event_id`). */
const reportId = (messageId, status) =>
  `evt_${createHash('sha256').update(`${messageId}:${status}`).digest('hex').slice(0, 32)}`;

// A user may read replies (JetStream answers, pulled messages) in its own inbox only: the document's
// `x-nats-users.<user>.inbox`, under the prefix like any subject.
const nc = await connect({
  servers: env.NATS_URL,
  ...(env.NATS_USER
    ? { user: env.NATS_USER, pass: env.NATS_PASSWORD, inboxPrefix: subject(doc['x-nats-users'][env.NATS_USER].inbox) }
    : {}),
});
const js = jetstream(nc);

/** Publishes one report, checked against its schema first; resolves once the server stored it. */
async function report(type, item, data) {
  const now = Math.floor(Date.now() / 1000);
  const event = {
    id: reportId(item.id, data.status.toLowerCase()),
    type,
    created_at: now,
    channel: item.channel,
    app_id: item.app_id,
    user_id: item.user_id,
    data: { message_id: item.id, recipient: item.recipient, category: item.category, timestamp: now, ...data },
  };
  const { subject: to, valid } = reports[type];
  if (!valid(event)) throw new Error(`${type} does not fit its schema: ${ajv.errorsText(valid.errors)}`);
  await js.publish(to, JSON.stringify(event), { msgID: event.id });
  process.stdout.write(`${JSON.stringify({ report: type, message_id: item.id, event_id: event.id })}\n`);
}

/** The content-free dead letter of a work item that cannot be read, then it is termed. */
async function deadLetter(lane, msg, reason) {
  const h = natsHeaders();
  const { stream: from, streamSequence, deliveryCount } = msg.info;
  for (const [k, v] of Object.entries({
    'Dlq-Reason': reason.slice(0, 1024),
    'Dlq-Stream': from,
    'Dlq-Consumer': lane.consumer.durable_name,
    'Dlq-Subject': msg.subject,
    'Dlq-Stream-Seq': String(streamSequence),
    'Dlq-Deliveries': String(deliveryCount),
  }))
    h.set(k, v);
  const record = {
    message_id: null,
    channel: null,
    priority: null,
    category: null,
    kind: null,
    user_id: null,
    app_id: null,
    connection_id: null,
    queued_at: null,
    attempts: deliveryCount,
    reason,
    dead_lettered_at: Date.now(),
  };
  const valid = deadLetterValid(lane);
  if (!valid(record)) throw new Error(`the dead letter does not fit its schema: ${ajv.errorsText(valid.errors)}`);
  await js.publish(deadLetterSubject(lane.consumer), JSON.stringify(record), {
    msgID: `dlq-${from}-${streamSequence}`,
    headers: h,
  });
  await js.jetstreamManager().then((jsm) => jsm.streams.deleteMessage(from, streamSequence));
  msg.term(reason);
  process.stdout.write(`${JSON.stringify({ dead_lettered: streamSequence, reason })}\n`);
}

async function handle(lane, msg) {
  let item = null;
  try {
    item = msg.json();
  } catch {
    // Not JSON: unreadable, below.
  }
  if (!workItemValid(item) || item.channel !== channel) {
    return deadLetter(lane, msg, `unreadable work item: ${ajv.errorsText(workItemValid.errors)}`);
  }
  if (item.recipient.endsWith(REFUSED_SUFFIX)) {
    await report('message.failed', item, {
      status: 'FAILED',
      provider_message_id: null,
      error: { code: 'recipient_refused', title: 'the provider refused the recipient', retryable: false },
    });
    return msg.ackAck();
  }
  const providerId = `adapter.${randomUUID()}`;
  await report('message.sent', item, { status: 'SENT', provider_message_id: providerId });
  await msg.ackAck();
  await report('message.delivered', item, { status: 'DELIVERED', provider_message_id: providerId });
}

const running = [];
for (const lane of lanes) {
  const consumer = await js.consumers.get(stream(lane.consumer.stream), lane.consumer.durable_name);
  const messages = await consumer.consume({ max_messages: 16 });
  running.push(
    (async () => {
      for await (const msg of messages) {
        // A failure to report leaves the message unacknowledged: it is redelivered after ack_wait.
        await handle(lane, msg).catch((err) => {
          process.stderr.write(`${String(err?.stack ?? err)}\n`);
          msg.nak(1000);
        });
      }
    })(),
  );
}
process.stdout.write('ready\n');

const stop = async () => {
  await nc.drain();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
await Promise.all(running);
