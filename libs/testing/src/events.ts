import { waitFor } from './wait';
import { EventConsumer, EventEnvelope, EventType, Topology } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import type { StoredMsg } from '@nats-io/jetstream';

/** Every message a stream holds now, in order (deleted sequences skipped). */
export async function readStream(clients: NatsClients, stream: string): Promise<StoredMsg[]> {
  const jsm = await clients.jsm();
  const info = await jsm.streams.info(stream);
  const out: StoredMsg[] = [];
  if (info.state.messages === 0) return out;
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const m = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (m) out.push(m);
  }
  return out;
}

/** Every event on the suite's EVENTS stream, in order. */
export async function readEvents(clients: NatsClients, topology: Topology): Promise<EventEnvelope[]> {
  return (await readStream(clients, topology.stream('events'))).map((m) => m.json<EventEnvelope>());
}

/**
 * The events of one type on the suite's EVENTS stream whose data matches, once one is there or
 * after `waitMs` (channel callbacks reach EVENTS through the gateway's relay, a moment after the
 * call that caused them); an empty answer means none arrived within that time.
 */
export async function eventsOf<D = Record<string, unknown>>(
  clients: NatsClients,
  topology: Topology,
  type: EventType,
  match: (data: D) => boolean = () => true,
  waitMs = 3_000,
): Promise<EventEnvelope<D>[]> {
  const until = performance.now() + waitMs;
  for (;;) {
    const found = ((await readEvents(clients, topology)) as EventEnvelope<D>[]).filter(
      (e) => e.type === type && match(e.data),
    );
    if (found.length > 0 || performance.now() >= until) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The events of a type matching `match` once at least `count` are in the stream (events relayed
 * asynchronously, such as channel callbacks, arrive a moment after the call that caused them).
 */
export async function eventsEventually<D = Record<string, unknown>>(
  clients: NatsClients,
  topology: Topology,
  type: EventType,
  match: (data: D) => boolean = () => true,
  opts: { count?: number; timeoutMs?: number } = {},
): Promise<EventEnvelope<D>[]> {
  const count = opts.count ?? 1;
  return waitFor(
    async () => {
      const found = await eventsOf<D>(clients, topology, type, match);
      return found.length >= count ? found : false;
    },
    opts.timeoutMs ?? 20_000,
    `${count} ${type} event(s)`,
    100,
  );
}

/** Waits until a durable consumer of EVENTS has handled (and acked) every event published so far. */
export async function eventsHandledBy(
  clients: NatsClients,
  topology: Topology,
  service: EventConsumer,
  timeoutMs = 20_000,
): Promise<void> {
  const jsm = await clients.jsm();
  await waitFor(
    async () => {
      const info = await jsm.consumers.info(topology.stream('events'), topology.eventConsumer(service));
      return info.num_pending === 0 && info.num_ack_pending === 0;
    },
    timeoutMs,
    `the ${service} consumer to handle every event`,
  );
}
