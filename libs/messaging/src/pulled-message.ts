import { Msg, MsgHdrs, NatsConnection, nanos } from '@nats-io/nats-core';
import { inboxOf } from './nats-connection';

const decoder = new TextDecoder();

/** Delivery metadata parsed from a JetStream ack subject. */
export interface DeliveryMeta {
  stream: string;
  consumer: string;
  /** 1 on the first delivery. */
  deliveryCount: number;
  streamSeq: number;
  /** Unix milliseconds at which the message was stored. */
  storedAt: number;
  pending: number;
}

/** `$JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>`, or the v2 form with domain and hash. */
export function parseAckSubject(reply: string): DeliveryMeta {
  const t = reply.split('.');
  if (t[0] !== '$JS' || t[1] !== 'ACK') throw new Error(`not a JetStream ack subject: ${reply}`);
  const p = t.length === 9 ? t.slice(2) : t.slice(4);
  return {
    stream: p[0],
    consumer: p[1],
    deliveryCount: Number(p[2]),
    streamSeq: Number(p[3]),
    storedAt: Math.floor(Number(p[5]) / 1e6),
    pending: Number(p[6]),
  };
}

/** A runner's count of the messages in hand of one source, as one message moves out of it and back. */
export interface InHandAllowance {
  stepAside(): void;
  stepBack(): void;
}

/**
 * A message taken from a durable pull consumer. Settlement is explicit. A nak or a term waits for
 * the server's confirmation (double ack): what follows them (a dead-letter copy, a back-off)
 * counts on the server having them. An ack is sent without waiting for the server's answer (see
 * ack).
 */
export class PulledMessage {
  readonly meta: DeliveryMeta;
  private settled = false;
  private allowance?: InHandAllowance;

  constructor(
    private readonly nc: NatsConnection,
    private readonly msg: Msg,
  ) {
    this.meta = parseAckSubject(msg.reply ?? '');
  }

  get subject(): string {
    return this.msg.subject;
  }

  get headers(): MsgHdrs | undefined {
    return this.msg.headers;
  }

  get data(): Uint8Array {
    return this.msg.data;
  }

  get msgId(): string | undefined {
    return this.msg.headers?.get('Nats-Msg-Id') || undefined;
  }

  json<T>(): T {
    return JSON.parse(decoder.decode(this.msg.data)) as T;
  }

  get isSettled(): boolean {
    return this.settled;
  }

  /**
   * Acknowledges the message without waiting for the server's answer, which would cost a reply per
   * message. An acknowledgement lost on the way (the connection dropped before the server read it)
   * means one more delivery after the consumer's ack wait: every consumer already takes a
   * redelivered message as it takes one redelivered after a crash between its work and its
   * acknowledgement, without doing the work twice.
   */
  async ack(): Promise<void> {
    await this.settle('+ACK', false);
  }

  /** Asks for redelivery no sooner than `delayMs`; `confirmed` false: without waiting for the server's answer. */
  async nak(delayMs: number, confirmed = true): Promise<void> {
    await this.settle(delayMs > 0 ? `-NAK ${JSON.stringify({ delay: nanos(delayMs) })}` : '-NAK', confirmed);
  }

  /** Stops redelivery for good. */
  async term(reason?: string): Promise<void> {
    await this.settle(reason ? `+TERM ${reason}` : '+TERM');
  }

  /**
   * While the handler waits for something that is not work (its turn under a pace), the message
   * stops counting toward its source's in-hand allowance, so the runner pulls the messages behind
   * it; `stepBack` counts it again. Without a runner in continuous mode both do nothing.
   */
  stepAside(): void {
    this.allowance?.stepAside();
  }

  stepBack(): void {
    this.allowance?.stepBack();
  }

  /** The runner that holds the message: where stepAside and stepBack count. */
  bindAllowance(allowance: InHandAllowance): void {
    this.allowance = allowance;
  }

  /** Resets the ack timer while a long delivery is under way. */
  working(): void {
    if (!this.settled && this.msg.reply) this.nc.publish(this.msg.reply, '+WPI');
  }

  /** Settles once; `confirmed`: waits for the server's answer (double ack). */
  private async settle(body: string, confirmed = true): Promise<void> {
    if (this.settled) return;
    if (!this.msg.reply) throw new Error('message has no ack subject');
    if (confirmed) await this.nc.request(this.msg.reply, body, { timeout: 5000 });
    else this.nc.publish(this.msg.reply, body);
    this.settled = true;
  }
}

/**
 * Takes up to `batch` messages that are ready now, without waiting for new ones (`no_wait`).
 * The library's fetch waits at least a second when a consumer is empty; a priority drain that
 * must look at the service consumer before every marketing batch cannot afford that. With
 * `waitForFirstMs`, an empty consumer is given that long for a first message (the server answers
 * as soon as one is stored, with whatever is ready then), and only then is the pull over.
 */
export async function pullNoWait(
  nc: NatsConnection,
  stream: string,
  consumer: string,
  batch: number,
  timeoutMs = 5000,
  waitForFirstMs = 0,
): Promise<PulledMessage[]> {
  const out: PulledMessage[] = [];
  const inbox = inboxOf(nc);
  return new Promise<PulledMessage[]>((resolve, reject) => {
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sub.unsubscribe();
      if (err && out.length === 0) reject(err);
      else resolve(out);
    };
    const timer = setTimeout(() => finish(), timeoutMs);
    const sub = nc.subscribe(inbox, {
      callback: (err, msg) => {
        if (err) return finish(err);
        const code = msg.headers?.code ?? 0;
        if (code >= 400 || (msg.data.length === 0 && msg.headers && !msg.reply)) {
          // 404 No Messages, 408 Request Timeout, 409 ...: the batch is over.
          if (code === 503 || (code === 409 && /consumer deleted|not found/i.test(msg.headers?.description ?? ''))) {
            return finish(new Error(`consumer ${stream}/${consumer}: ${msg.headers?.description}`));
          }
          return finish();
        }
        if (!msg.reply) return;
        out.push(new PulledMessage(nc, msg));
        if (out.length >= batch) finish();
      },
    });
    const request = { batch, no_wait: true, ...(waitForFirstMs > 0 ? { expires: waitForFirstMs * 1_000_000 } : {}) };
    nc.publish(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${consumer}`, JSON.stringify(request), { reply: inbox });
  });
}
