import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { KV } from '@nats-io/kv';
import { PacingLimits } from '@app/channels';

/** One sender's pacing state: the generic cell rate algorithm's theoretical arrival time and a pause. */
export interface SlotState {
  /** Theoretical arrival time of the next message, unix ms. */
  tat: number;
  /** Nothing goes out before this (the channel asked the sender to back off), unix ms. */
  pausedUntil: number;
}

/**
 * Takes `count` consecutive slots from `state` (GCRA with a burst tolerance): the slot times, unix
 * ms, ascending, and the state after them. The one rule for the local and the shared store.
 */
export function takeSlots(
  state: SlotState,
  count: number,
  now: number,
  limits: PacingLimits,
): { slots: number[]; state: SlotState } {
  const interval = 1000 / limits.ratePerSender;
  const tolerance = (Math.max(1, limits.burst) - 1) * interval;
  let tat = state.tat;
  const slots: number[] = [];
  for (let i = 0; i < count; i++) {
    const grant = Math.max(now, tat - tolerance, state.pausedUntil);
    slots.push(grant);
    tat = Math.max(tat, grant) + interval;
  }
  return { slots, state: { tat, pausedUntil: state.pausedUntil } };
}

/** Where a sender's send slots come from: this process alone, or a bucket every replica shares. */
export interface SenderSlots {
  /** Reserves `count` consecutive slots of `sender`: their times, unix ms, ascending. */
  reserve(sender: string, count: number): Promise<number[]>;
  /** No slot of `sender` before `until` (unix ms), for every holder of this store. */
  pause(sender: string, until: number): Promise<void>;
}

/** Slots of this process only (one replica per channel, and unit specs). */
export class LocalSenderSlots implements SenderSlots {
  private readonly states = new Map<string, SlotState>();

  constructor(
    private readonly limits: PacingLimits,
    private readonly now: () => number = Date.now,
  ) {}

  reserve(sender: string, count: number): Promise<number[]> {
    const taken = takeSlots(this.states.get(sender) ?? { tat: 0, pausedUntil: 0 }, count, this.now(), this.limits);
    this.states.set(sender, taken.state);
    return Promise.resolve(taken.slots);
  }

  pause(sender: string, until: number): Promise<void> {
    const s = this.states.get(sender) ?? { tat: 0, pausedUntil: 0 };
    this.states.set(sender, { ...s, pausedUntil: Math.max(s.pausedUntil, until) });
    return Promise.resolve();
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const SAFE_KEY = /^[-_=A-Za-z0-9]{1,200}$/;

/** A bucket key for a sender of a channel (`whatsapp.1000001`); other characters are base64url-encoded. */
export function senderPacingKey(channel: string, sender: string): string {
  return `${channel}.${SAFE_KEY.test(sender) ? sender : `b64_${Buffer.from(sender).toString('base64url')}`}`;
}

function decode(value: Uint8Array): SlotState {
  const [tat, paused] = decoder.decode(value).split(':').map(Number);
  return { tat: Number.isFinite(tat) ? tat : 0, pausedUntil: Number.isFinite(paused) ? paused : 0 };
}

function isWrongSequence(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence ||
      err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/**
 * Slots shared by every replica of a channel through a JetStream Key-Value bucket: a sender's GCRA
 * state is one key (`<tat>:<paused until>`), advanced by compare-and-set, so however many replicas
 * hold a sender's messages the channel sees that sender at its rate. Slots are reserved a few at a
 * time to keep one bucket write per block, not per message.
 */
export class SharedSenderSlots implements SenderSlots {
  constructor(
    private readonly kv: KV,
    private readonly channel: string,
    private readonly limits: PacingLimits,
    private readonly now: () => number = Date.now,
  ) {}

  reserve(sender: string, count: number): Promise<number[]> {
    return this.update(sender, (s) => {
      const taken = takeSlots(s, count, this.now(), this.limits);
      return { state: taken.state, result: taken.slots };
    });
  }

  async pause(sender: string, until: number): Promise<void> {
    await this.update(sender, (s) => ({
      state: { ...s, pausedUntil: Math.max(s.pausedUntil, until) },
      result: undefined,
    }));
  }

  /** Read, change, compare-and-set; again from the fresh value when another replica wrote first. */
  private async update<T>(sender: string, change: (s: SlotState) => { state: SlotState; result: T }): Promise<T> {
    const key = senderPacingKey(this.channel, sender);
    for (;;) {
      const e = await this.kv.get(key);
      const live = e && e.operation === 'PUT' && e.length > 0;
      const { state, result } = change(live ? decode(e.value) : { tat: 0, pausedUntil: 0 });
      const value = encoder.encode(`${state.tat}:${state.pausedUntil}`);
      try {
        if (e?.revision) await this.kv.update(key, value, e.revision);
        else await this.kv.create(key, value);
        return result;
      } catch (err) {
        if (!isWrongSequence(err)) throw err;
      }
    }
  }
}
