import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { KV } from '@nats-io/kv';
import { PacingLimits } from '@app/channels';
import { Priority } from '@app/contracts';

/**
 * One sender's pacing state: the generic cell rate algorithm's theoretical arrival time, a pause,
 * and per lane the end of the slots promised to messages sent back to the stream to wait for
 * their turn (deferred: see SendPacer.admit).
 */
export interface SlotState {
  /** Theoretical arrival time of the next message, unix ms. */
  tat: number;
  /** Nothing goes out before this (the channel asked the sender to back off), unix ms. */
  pausedUntil: number;
  /** Per lane, the first slot not yet promised to a deferred message, unix ms (0: none promised). */
  promised: Record<Priority, number>;
}

/** A sender nobody has paced yet. */
export function freshSlotState(): SlotState {
  return { tat: 0, pausedUntil: 0, promised: { service: 0, marketing: 0 } };
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
  return { slots, state: { ...state, tat } };
}

/**
 * Promises `count` slots of `lane` to messages that go back to the stream until their turn: after
 * `aheadMs` from `now` (the slots the messages held in hand will take), after the sender's reserved
 * slots and pause, and after every slot already promised to the lane, or, for marketing, to either
 * lane (the service lane goes first). The promises are spaced at the sender's rate, so the
 * deferred messages come back in the order and at the pace the sender can send them.
 */
export function promiseSlots(
  state: SlotState,
  lane: Priority,
  count: number,
  now: number,
  aheadMs: number,
  limits: PacingLimits,
): { promised: number[]; state: SlotState } {
  const interval = 1000 / limits.ratePerSender;
  const after =
    lane === 'marketing' ? Math.max(state.promised.service, state.promised.marketing) : state.promised.service;
  let next = Math.max(now + aheadMs, state.tat, state.pausedUntil, after);
  const promised: number[] = [];
  for (let i = 0; i < count; i++) {
    promised.push(next);
    next += interval;
  }
  return { promised, state: { ...state, promised: { ...state.promised, [lane]: next } } };
}

/** Where a sender's send slots come from: this process alone, or a bucket every replica shares. */
export interface SenderSlots {
  /** Reserves `count` consecutive slots of `sender`: their times, unix ms, ascending. */
  reserve(sender: string, count: number): Promise<number[]>;
  /** No slot of `sender` before `until` (unix ms), for every holder of this store. */
  pause(sender: string, until: number): Promise<void>;
  /** Promises `count` slots of `lane` to deferred messages (see promiseSlots): their times, ascending. */
  promise(sender: string, lane: Priority, count: number, aheadMs: number): Promise<number[]>;
}

/** Slots of this process only (one replica per channel, and unit specs). */
export class LocalSenderSlots implements SenderSlots {
  private readonly states = new Map<string, SlotState>();

  constructor(
    private readonly limits: PacingLimits,
    private readonly now: () => number,
  ) {}

  reserve(sender: string, count: number): Promise<number[]> {
    const taken = takeSlots(this.states.get(sender) ?? freshSlotState(), count, this.now(), this.limits);
    this.states.set(sender, taken.state);
    return Promise.resolve(taken.slots);
  }

  pause(sender: string, until: number): Promise<void> {
    const s = this.states.get(sender) ?? freshSlotState();
    this.states.set(sender, { ...s, pausedUntil: Math.max(s.pausedUntil, until) });
    return Promise.resolve();
  }

  promise(sender: string, lane: Priority, count: number, aheadMs: number): Promise<number[]> {
    const p = promiseSlots(this.states.get(sender) ?? freshSlotState(), lane, count, this.now(), aheadMs, this.limits);
    this.states.set(sender, p.state);
    return Promise.resolve(p.promised);
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const SAFE_KEY = /^[-_=A-Za-z0-9]{1,200}$/;

/** A bucket key for a sender of a channel (`whatsapp.1000001`); other characters are base64url-encoded. */
export function senderPacingKey(channel: string, sender: string): string {
  return `${channel}.${SAFE_KEY.test(sender) ? sender : `b64_${Buffer.from(sender).toString('base64url')}`}`;
}

const finite = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n : 0);

/** `<tat>:<paused until>[:<service promised>:<marketing promised>]`; a value without promises has none. */
function decode(value: Uint8Array): SlotState {
  const [tat, paused, service, marketing] = decoder.decode(value).split(':').map(Number);
  return {
    tat: finite(tat),
    pausedUntil: finite(paused),
    promised: { service: finite(service), marketing: finite(marketing) },
  };
}

function encode(s: SlotState): Uint8Array {
  return encoder.encode(`${s.tat}:${s.pausedUntil}:${s.promised.service}:${s.promised.marketing}`);
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
    private readonly now: () => number,
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

  promise(sender: string, lane: Priority, count: number, aheadMs: number): Promise<number[]> {
    return this.update(sender, (s) => {
      const p = promiseSlots(s, lane, count, this.now(), aheadMs, this.limits);
      return { state: p.state, result: p.promised };
    });
  }

  /** Read, change, compare-and-set; again from the fresh value when another replica wrote first. */
  private async update<T>(sender: string, change: (s: SlotState) => { state: SlotState; result: T }): Promise<T> {
    const key = senderPacingKey(this.channel, sender);
    for (;;) {
      const e = await this.kv.get(key);
      const live = e && e.operation === 'PUT' && e.length > 0;
      const { state, result } = change(live ? decode(e.value) : freshSlotState());
      const value = encode(state);
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
