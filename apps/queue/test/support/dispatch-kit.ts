import {
  EventEnvelope,
  MessageCategory,
  MessageStatusData,
  newMessageId,
  OutboundContent,
  OutboundMessage,
  MessageKind,
  priorityOf,
  SenderArrivals,
  Topology,
} from '@app/contracts';
import { NatsClients, publishDurable } from '@app/messaging';

/** One request the sandbox's emulated Graph API received (GET /_sandbox/whatsapp/messages). */
export interface SandboxSend {
  seq: number;
  received_at: number;
  phone_number_id: string;
  endpoint: string;
  body: Record<string, unknown> & { to: string };
  wamid: string | null;
  outcome: 'accepted' | 'rejected' | 'fault';
  http_status: number;
  error: { code: number; message: string } | null;
}

/** The sandbox's control endpoints used by the delivery suites. */
export class SandboxWhatsApp {
  constructor(private readonly baseUrl: string) {}

  async sends(filter: { include?: 'all'; to?: string; phone_number_id?: string } = {}): Promise<SandboxSend[]> {
    const q = new URLSearchParams(Object.entries(filter).filter(([, v]) => v !== undefined) as [string, string][]);
    const res = await fetch(`${this.baseUrl}/_sandbox/whatsapp/messages?${q}`);
    if (!res.ok) throw new Error(`sandbox messages: ${res.status}`);
    return (await res.json()) as SandboxSend[];
  }

  /** Per sending number: how many accepted sends, first and last arrival, the most within one second. */
  async arrivals(): Promise<SenderArrivals[]> {
    const res = await fetch(`${this.baseUrl}/_sandbox/whatsapp/arrivals`);
    if (!res.ok) throw new Error(`sandbox arrivals: ${res.status}`);
    return (await res.json()) as SenderArrivals[];
  }

  /** How many webhooks the sandbox has sent (status callbacks and others) and their attempts, counted whole. */
  async webhookCounts(): Promise<{ total: number; kept: number; attempts: number }> {
    const res = await fetch(`${this.baseUrl}/_sandbox/whatsapp/records`);
    if (!res.ok) throw new Error(`sandbox records: ${res.status}`);
    return ((await res.json()) as { webhooks: { total: number; kept: number; attempts: number } }).webhooks;
  }

  async fault(f: {
    mode: '429' | '500' | 'hang';
    count?: number;
    retry_after_seconds?: number;
    phone_number_id?: string;
  }) {
    const res = await fetch(`${this.baseUrl}/_sandbox/whatsapp/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(f),
    });
    if (!res.ok) throw new Error(`sandbox fault: ${res.status} ${await res.text()}`);
  }

  async clearFault(): Promise<void> {
    await fetch(`${this.baseUrl}/_sandbox/whatsapp/faults`, { method: 'DELETE' });
  }
}

let recipientSeq = 0;
/** A fresh recipient number per call, ending in 5 (no sandbox rule digit pattern). */
export function nextRecipient(): string {
  recipientSeq += 1;
  return `7${String(Date.now() % 1e6).padStart(6, '0')}${String(recipientSeq).padStart(4, '0')}5`;
}

/** An outbound work item as the intake publishes it; a TEXT message unless told otherwise. */
export function outbound(
  o: Partial<Omit<OutboundMessage, 'sender'>> & { sender?: string; kind?: MessageKind; content?: OutboundContent } = {},
): OutboundMessage {
  const category: MessageCategory | null = o.category === undefined ? null : o.category;
  const id = o.id ?? newMessageId();
  return {
    id,
    channel: 'whatsapp',
    priority: o.priority ?? priorityOf(category),
    category,
    user_id: o.user_id ?? 'user-1',
    app_id: o.app_id ?? 1,
    sender: { connection_id: o.sender ?? '1000001', waba_id: '2000001' },
    recipient: o.recipient ?? nextRecipient(),
    kind: o.kind ?? 'TEXT',
    content: o.content ?? { text: { body: `hello ${id}` } },
    queued_at: Date.now(),
  };
}

export function publishOutbound(clients: NatsClients, t: Topology, msg: OutboundMessage) {
  return publishDurable(clients.js, t.outboundSubject(msg.priority, msg.channel), msg, msg.id);
}

export type StatusEvent = EventEnvelope<MessageStatusData>;

/** Reads the EVENTS stream incrementally (each poll fetches only what is new). */
export class EventsTail {
  readonly events: StatusEvent[] = [];
  private nextSeq = 0;

  constructor(
    private readonly clients: NatsClients,
    private readonly t: Topology,
  ) {}

  async poll(): Promise<StatusEvent[]> {
    const jsm = await this.clients.jsm();
    const stream = this.t.stream('events');
    const info = await jsm.streams.info(stream);
    if (info.state.messages === 0) return this.events;
    if (this.nextSeq === 0) this.nextSeq = info.state.first_seq;
    for (; this.nextSeq <= info.state.last_seq; this.nextSeq++) {
      const m = await jsm.streams.getMessage(stream, { seq: this.nextSeq });
      if (m) this.events.push(m.json<StatusEvent>());
    }
    return this.events;
  }

  of(messageId: string, type?: StatusEvent['type']): StatusEvent[] {
    return this.events.filter((e) => e.data.message_id === messageId && (!type || e.type === type));
  }

  /** Polls until an event of `type` exists for `messageId`. */
  async waitFor(messageId: string, type: StatusEvent['type'], timeoutMs = 15_000): Promise<StatusEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.poll();
      const found = this.of(messageId, type)[0];
      if (found) return found;
      if (Date.now() > deadline) {
        const seen = this.of(messageId).map((e) => `${e.type} ${JSON.stringify(e.data.error ?? null)}`);
        throw new Error(`no ${type} for ${messageId} within ${timeoutMs} ms (seen: ${seen.join('; ') || 'nothing'})`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
