import { Client } from 'pg';
import { sleep } from '@app/testing';
import { gatewayAccount, gatewayClient } from '../../support/campaigns';

/** What the inbound load ended with: each message a customer wrote, stored in its conversation once. */
export interface InboundOutcome {
  /** Messages the channel took from a customer (the sandbox delivers each until the gateway takes it). */
  sent: number;
  /** Distinct messages stored in a conversation. */
  stored: number;
  /** Sent but not in any conversation. */
  lost: string[];
  /** Stored more than once. */
  twice: string[];
}

/** Distinct customers writing. */
const CUSTOMERS = 25;

/**
 * Customers writing to a WhatsApp number of a gateway account throughout the chaos suite: a
 * message every 1/perSecond seconds through the sandbox, which keeps delivering a webhook until
 * the gateway takes it (again when an answer was lost). At the end the conversation messages are
 * counted against what was written: none lost, none stored twice.
 */
export class InboundLoad {
  private running = false;
  private loop?: Promise<void>;
  private readonly written: string[] = [];

  private constructor(
    private readonly sandboxUrl: string,
    private readonly databaseUrl: string,
    private readonly phoneNumberId: string,
    private readonly perSecond: number,
  ) {}

  /** A gateway account of `userId` connected to its WhatsApp app `appId` (number `phoneNumberId`). */
  static async prepare(
    urls: { gateway: string; sandbox: string },
    databaseUrl: string,
    user: { userId: string; appId: number; phoneNumberId: string },
    perSecond: number,
  ): Promise<InboundLoad> {
    const call = gatewayClient(urls.gateway, await gatewayAccount(databaseUrl, 'chaos inbound', user.userId));
    const connected = await call('POST', '/v1/connections', { channel: 'whatsapp', app_id: user.appId });
    if (connected.status !== 201) throw new Error(`whatsapp connection refused: ${connected.status} ${connected.text}`);
    return new InboundLoad(urls.sandbox, databaseUrl, user.phoneNumberId, perSecond);
  }

  start(): void {
    this.running = true;
    this.loop = (async () => {
      for (let n = 0; this.running; n++) {
        await this.write(n).catch(() => undefined);
        await sleep(1000 / this.perSecond);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Every written message is in a conversation. */
  async settled(): Promise<boolean> {
    const o = await this.outcome();
    return o.lost.length === 0;
  }

  async outcome(): Promise<InboundOutcome> {
    const db = new Client({ connectionString: this.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ text: string; n: number }>(
        `SELECT m.content ->> 'text' AS text, count(*)::int AS n
           FROM gateway.conversation_messages m
           JOIN gateway.conversations c ON c.id = m.conversation_id
          WHERE m.direction = 'in' AND c.channel = 'whatsapp' AND m.content ->> 'text' LIKE 'chaos-in-%'
          GROUP BY 1`,
      );
      const stored = new Map(rows.map((r) => [r.text, r.n]));
      return {
        sent: this.written.length,
        stored: stored.size,
        lost: this.written.filter((t) => !stored.has(t)),
        twice: [...stored].filter(([, n]) => n > 1).map(([t, n]) => `${t}×${n}`),
      };
    } finally {
      await db.end();
    }
  }

  static describe(o: InboundOutcome): string {
    return `${o.sent} written, ${o.stored} stored, ${o.lost.length} lost, ${o.twice.length} stored twice`;
  }

  /** One customer message, written through the channel. */
  private async write(n: number): Promise<void> {
    const text = `chaos-in-${n}`;
    const body = {
      phone_number_id: this.phoneNumberId,
      from: `7999300${String(n % CUSTOMERS).padStart(4, '0')}`,
      text,
    };
    const res = await fetch(`${this.sandboxUrl}/_sandbox/whatsapp/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    // Taken by the channel: it delivers the webhook until the gateway answers.
    if (res.ok) this.written.push(text);
  }
}
