import { EventEnvelope, EventType, Topology } from '@app/contracts';
import { hubSignature, WebhookInboundMessage, WhatsAppWebhookPayload, WebhookStatus } from '@app/channels';
import { NatsClients } from '@app/messaging';

export const APP_SECRET = 'sandbox-app-secret';

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

export async function eventsOf<D = Record<string, unknown>>(
  clients: NatsClients,
  topology: Topology,
  type: EventType,
  match: (data: D) => boolean = () => true,
): Promise<EventEnvelope<D>[]> {
  return ((await readEvents(clients, topology)) as EventEnvelope<D>[]).filter((e) => e.type === type && match(e.data));
}

/** Posts a webhook signed over exactly the bytes sent. */
export function postWebhook(
  gatewayUrl: string,
  raw: string,
  signature: string | null = hubSignature(APP_SECRET, raw),
): Promise<Response> {
  return fetch(`${gatewayUrl}/v1/inbound/whatsapp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(signature ? { 'X-Hub-Signature-256': signature } : {}) },
    body: raw,
  });
}

export function statusesPayload(
  wabaId: string,
  phoneNumberId: string,
  statuses: WebhookStatus[],
): WhatsAppWebhookPayload {
  return messagesPayload(wabaId, phoneNumberId, { statuses });
}

/** A callback of the `messages` field (statuses, inbound messages) for one business number. */
export function messagesPayload(
  wabaId: string,
  phoneNumberId: string,
  content: { statuses?: WebhookStatus[]; messages?: WebhookInboundMessage[] },
): WhatsAppWebhookPayload {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: wabaId,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550001111', phone_number_id: phoneNumberId },
              ...content,
            },
          },
        ],
      },
    ],
  };
}
