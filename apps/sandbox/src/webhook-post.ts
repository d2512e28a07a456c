import { httpCall } from '@app/channels';

/** Calls in flight to one receiver at most, as a channel's bounded sender pool would have. */
export const WEBHOOK_CONNECTIONS = 64;

/**
 * How the emulated channels call webhooks: kept-alive connections, at most `limit` calls in
 * flight to one receiver (so at most as many connections to it); the others wait their turn, and
 * an attempt's timeout starts when its call is sent, not while it waits. A receiver that falls behind then sees a steady queue of
 * calls, each with its full time to answer, rather than calls that time out before they are
 * sent and come again.
 */
export class WebhookPoster {
  private readonly slots = new Map<string, { active: number; waiting: (() => void)[] }>();

  constructor(private readonly limit = WEBHOOK_CONNECTIONS) {}

  async post(
    url: string,
    body: string,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Promise<{ status: number; ok: boolean }> {
    const target = new URL(url);
    const release = await this.acquire(target.origin);
    try {
      const res = await httpCall(target, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { status: res.status, ok: res.ok };
    } finally {
      release();
    }
  }

  private async acquire(origin: string): Promise<() => void> {
    let slot = this.slots.get(origin);
    if (!slot) this.slots.set(origin, (slot = { active: 0, waiting: [] }));
    const s = slot;
    if (s.active >= this.limit) await new Promise<void>((resolve) => s.waiting.push(resolve));
    else s.active++;
    return () => {
      const next = s.waiting.shift();
      if (next) next();
      else s.active--;
    };
  }
}

export const webhookPoster = new WebhookPoster();
