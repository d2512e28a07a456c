import { EventEnvelope, EventType, newEventId, newMessageId, Topology, unixSeconds } from '@app/contracts';
import { NatsClients, publishDurable } from '@app/messaging';

export interface ApiAnswer<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/** Calls the api with a bearer header; JSON in, JSON (or nothing) out. */
export async function call<T = unknown>(
  base: string,
  auth: string | null,
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiAnswer<T>> {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: {
      ...(auth ? { authorization: auth } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, headers: res.headers };
}

/** A channel event as the platform publishes it to EVENTS (the sender side is simulated). */
export function channelEvent(
  userId: string,
  type: EventType = 'message.delivered',
  overrides: Partial<EventEnvelope> = {},
): EventEnvelope {
  return {
    id: newEventId(),
    type,
    created_at: unixSeconds(),
    channel: 'whatsapp',
    app_id: 12,
    user_id: userId,
    data: {
      message_id: newMessageId(),
      recipient: '79990001122',
      status: 'DELIVERED',
      timestamp: unixSeconds(),
    },
    ...overrides,
  };
}

export async function publishEvent(clients: NatsClients, t: Topology, e: EventEnvelope): Promise<void> {
  await publishDurable(clients.js, t.eventSubject(e.type), e, e.id);
}
