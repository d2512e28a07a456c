import { randomUUID } from 'node:crypto';
import { sleep } from '@app/testing';

/** One HTTP attempt of a send, as the client saw it. */
export interface Attempt {
  /** What the suite was doing when the attempt started (`warm-up`, `kill api`, `nats down`, ...). */
  phase: string;
  /** HTTP status, or `error` (connection refused or reset) or `timeout` (no answer in 10 s). */
  outcome: number | 'error' | 'timeout';
  ms: number;
  retryAfter: string | null;
  /** For `error`: what failed (the cause's code, e.g. ECONNREFUSED or UND_ERR_SOCKET). */
  detail?: string;
}

export interface SendTarget {
  userIndex: number;
  auth: string;
  appId: number;
  template: string;
}

/** A 201: the message id the api gave, for which user. */
export interface Accepted {
  messageId: string;
  userIndex: number;
  key: string;
}

const ATTEMPT_TIMEOUT_MS = 10_000;
/** A careful client gives a send this long, retrying with the same key, before it gives up. */
const GIVE_UP_AFTER_MS = 60_000;

/** Recipients chosen so that the sandbox's rules give every outcome: read, delivered only, failed twice. */
const RECIPIENT_ENDINGS = ['5678', '1111', '0000', '4444', '9876', '2222'];

/**
 * Clients sending template messages as a careful client does: one `Idempotency-Key` per message,
 * kept across retries; a connection error, a timeout, 409, 429 and 5xx are retried after
 * `Retry-After` (or a short pause); any other 4xx is final.
 */
export class SendLoad {
  /** Every phase with the time it began, to tell when something happened. */
  readonly timeline: { phase: string; at: number }[] = [{ phase: 'warm-up', at: Date.now() }];
  readonly attempts: Attempt[] = [];
  readonly accepted: Accepted[] = [];
  /** Sends refused with a final 4xx (status and body). */
  readonly refused: { status: number; body: string }[] = [];
  /** Keys given up after GIVE_UP_AFTER_MS of retries, with the last outcome seen. */
  readonly abandoned: { key: string; last: Attempt }[] = [];
  private running = false;
  private loop?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();
  private seq = 0;

  /** `perSecond` new sends a second, at most `maxInFlight` of them unsettled at a time. */
  constructor(
    private readonly apiUrl: string,
    private readonly targets: SendTarget[],
    private readonly perSecond: number,
    private readonly maxInFlight: number,
  ) {}

  get phase(): string {
    return this.timeline[this.timeline.length - 1].phase;
  }

  set phase(phase: string) {
    this.timeline.push({ phase, at: Date.now() });
  }

  /** The phase the suite was in at `at` (epoch ms). */
  phaseAt(at: number): string {
    let found = this.timeline[0].phase;
    for (const t of this.timeline) if (t.at <= at) found = t.phase;
    return found;
  }

  /** Starts sending; a send that keeps being retried does not hold the others up. */
  start(): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        if (this.inFlight.size < this.maxInFlight) {
          const n = this.seq++;
          const target = this.targets[n % this.targets.length];
          const ending = RECIPIENT_ENDINGS[n % RECIPIENT_ENDINGS.length];
          const phone = `7999${String(n).padStart(5, '0').slice(-5)}${ending}`;
          const p = this.send(target, phone, n).finally(() => this.inFlight.delete(p));
          this.inFlight.add(p);
        }
        await sleep(1000 / this.perSecond);
      }
    })();
  }

  /** Stops starting new sends; sends under way finish their retries. */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await Promise.all([...this.inFlight]);
  }

  private async send(target: SendTarget, phone: string, n: number): Promise<void> {
    const key = randomUUID();
    const body = JSON.stringify({
      phone,
      type: 'TEMPLATE',
      template: { name: target.template, components: { body: { values: [`client ${n}`, `order ${n}`] } } },
    });
    const giveUpAt = Date.now() + GIVE_UP_AFTER_MS;
    let last: Attempt = { phase: this.phase, outcome: 'error', ms: 0, retryAfter: null };
    while (Date.now() < giveUpAt) {
      const phase = this.phase;
      const started = Date.now();
      let wait = 500;
      try {
        const res = await fetch(`${this.apiUrl}/api/v1/wa/apps/${target.appId}/messages`, {
          method: 'POST',
          headers: { authorization: target.auth, 'content-type': 'application/json', 'idempotency-key': key },
          body,
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        const text = await res.text();
        const retryAfter = res.headers.get('retry-after');
        last = { phase, outcome: res.status, ms: Date.now() - started, retryAfter };
        this.attempts.push(last);
        if (res.status === 201) {
          const messageId = (JSON.parse(text) as { message: { id: string } }).message.id;
          this.accepted.push({ messageId, userIndex: target.userIndex, key });
          return;
        }
        if (res.status < 500 && ![401, 409, 429].includes(res.status)) {
          this.refused.push({ status: res.status, body: text.slice(0, 300) });
          return;
        }
        wait = Math.min(5000, Math.max(200, Number(retryAfter ?? '1') * 1000 || 1000));
      } catch (err) {
        // Duck-typed: under jest, errors of node's fetch come from another realm than this Error.
        const e = err as { name?: string; cause?: { code?: string; message?: string } };
        const outcome = e.name === 'TimeoutError' ? 'timeout' : 'error';
        const cause = e.cause;
        const detail = outcome === 'error' ? (cause?.code ?? cause?.message ?? String(err)) : undefined;
        last = { phase, outcome, ms: Date.now() - started, retryAfter: null, detail };
        this.attempts.push(last);
      }
      await sleep(wait);
    }
    this.abandoned.push({ key, last });
  }
}
