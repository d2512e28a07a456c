import { EventEnvelope, EventType, Topology } from '@app/contracts';
import { NatsClients } from '@app/messaging';

/** Every event on the suite's EVENTS stream, in order. */
export async function readEvents(clients: NatsClients, topology: Topology): Promise<EventEnvelope[]> {
  const jsm = await clients.jsm();
  const stream = topology.stream('events');
  const info = await jsm.streams.info(stream);
  const out: EventEnvelope[] = [];
  if (info.state.messages === 0) return out;
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const m = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (m) out.push(m.json<EventEnvelope>());
  }
  return out;
}

/** The events of one type on the suite's EVENTS stream whose data matches. */
export async function eventsOf<D = Record<string, unknown>>(
  clients: NatsClients,
  topology: Topology,
  type: EventType,
  match: (data: D) => boolean = () => true,
): Promise<EventEnvelope<D>[]> {
  return ((await readEvents(clients, topology)) as EventEnvelope<D>[]).filter((e) => e.type === type && match(e.data));
}
