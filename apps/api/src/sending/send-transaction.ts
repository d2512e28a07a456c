import { GroupCommit, isPgError, PG_ERROR } from '@app/database';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ProblemError, TooManyRequestsProblem, UnprocessableProblem } from '@app/server';
import { BillingService, toUnits, Units } from '../billing/billing.service';
import { ApiConfig } from '../config';
import { keyTakenOver } from '../idempotency/idempotency.service';
import { IdempotencyRepository } from '../idempotency/idempotency.repository';
import { MessagesRepository, QueuedMessage } from '../messages/messages.repository';
import { OutboxEntry, OutboxRepository } from '../outbox';
import { TierGate, TierWindowRepository } from './tier-window';

/** A prepared send: its message row, the tier it is subject to, and what it publishes. */
export interface SendRecord {
  /** Accepted now, unless `createdAt` says when (a send recorded as of an earlier time). */
  message: Omit<QueuedMessage, 'currency'>;
  /** The app's messaging tier (unique template recipients in 24 hours); null: not counted. */
  tier: { appId: number; cap: number; label: string } | null;
  outbox: OutboxEntry;
  /** The Idempotency-Key it is sent under: it commits only while `holder` still holds the key. */
  lease?: { key: string; holder: string } | null;
  /** More the send writes in its transaction once accepted (a failover route's attempts). */
  alsoWrite?: (em: EntityManager) => Promise<void>;
}

export type SendOutcome = { accepted: true; currency: string } | { accepted: false; problem: ProblemError };

/**
 * The durable half of a send, shared by every intake: the messaging tier, the hold on the
 * balance, the message with its first timeline step and its outbox row, all in one transaction.
 * Concurrent sends of one user are grouped into one transaction (group commit): one lock and one
 * update of the user's balance row, the only hot row, for the whole group; each caller is
 * answered with its own outcome once the group has committed.
 */
@Injectable()
export class SendTransaction {
  private readonly groups: GroupCommit<SendRecord, SendOutcome>;

  constructor(
    private readonly messages: MessagesRepository,
    private readonly tiers: TierWindowRepository,
    private readonly billing: BillingService,
    private readonly outbox: OutboxRepository,
    private readonly keys: IdempotencyRepository,
    config: ApiConfig,
  ) {
    this.groups = new GroupCommit((userId, sends) => this.commitGroup(userId, sends), config.SEND_BATCH_MAX);
  }

  /** Resolves once this send's rows are committed (accepted) or it was refused. */
  commit(send: SendRecord): Promise<SendOutcome> {
    return this.groups.submit(send.message.userId, send);
  }

  private async commitGroup(userId: string, sends: SendRecord[]): Promise<SendOutcome[]> {
    return (await this.commitInOneStatement(userId, sends)) ?? this.commitLocked(userId, sends);
  }

  /**
   * The common case as one statement on its own, one round trip: the balance covers every send of
   * the group, and each template's recipient is either inside its app's tier window or new to it
   * with room left under the cap (no expired row to sweep). The statement takes the counters of the
   * apps with new recipients, then the balance row, each on condition, and keeps them only while it
   * runs and commits, not across round trips to this process: the sends and settlements of one
   * user on several api replicas queue behind each other for that long only. Before any of them,
   * it takes the Idempotency-Keys the sends are made under, and records each send's message on its
   * key: only while each is still held by its request. Null, with nothing written (the statement
   * aborted), when the case does not hold; then `commitLocked` decides each send.
   */
  private async commitInOneStatement(userId: string, sends: SendRecord[]): Promise<SendOutcome[] | null> {
    if (sends.some((s) => s.alsoWrite)) return null;
    const tiered = new Map<string, { appId: number; recipient: string; cap: number }>();
    for (const s of sends) {
      if (!s.tier) continue;
      tiered.set(`${s.tier.appId} ${s.message.recipient}`, {
        appId: s.tier.appId,
        recipient: s.message.recipient,
        cap: s.tier.cap,
      });
    }
    const params: unknown[] = [];
    const param = (value: unknown) => `$${params.push(value)}`;
    const gate = 'EXISTS (SELECT 1 FROM hold_b)';
    const keyed = sends.filter((s) => s.lease);
    const held = keyed.length
      ? this.keys.heldSql({
          user: param(userId),
          keys: param(keyed.map((s) => s.lease!.key)),
          holders: param(keyed.map((s) => s.lease!.holder)),
          messages: param(keyed.map((s) => s.message.id)),
        })
      : null;
    const pairs = [...tiered.values()];
    const admit = pairs.length
      ? this.tiers.admitSql(
          {
            apps: param(pairs.map((t) => t.appId)),
            recipients: param(pairs.map((t) => t.recipient)),
            caps: param(pairs.map((t) => t.cap)),
          },
          gate,
        )
      : null;
    // The new rows (messages, timeline steps, outbox entries, holds) are written first, as the
    // statement's snapshot says the balance covers them; then the apps' counters and the balance
    // row are taken, then the usage row and the window's rows, so that the contended rows are held
    // for the end of the statement and its commit only.
    const also = [held && `${held.held} = ${keyed.length}`, admit?.room].filter(Boolean).join(' AND ');
    const hold = this.billing.conditionalHold(
      userId,
      sends.map((s) => ({ messageId: s.message.id, amount: toUnits(s.message.price) })),
      params.length + 1,
      also || undefined,
      ['queued_m', 'queued_e', 'send_outbox'],
    );
    params.push(...hold.params);
    // The currency is the balance's, read by the statement itself.
    const queued = this.messages.queuedJson(sends.map((s) => ({ ...s.message, currency: '' })));
    const queuedParts = this.messages.queuedParts(param(queued), hold.seen, hold.currency, gate);
    const ctes = [
      ...(held ? [held.ctes] : []),
      ...(admit ? [admit.counters] : []),
      hold.before,
      queuedParts.rows,
      `send_outbox AS (${this.outbox.insertSql(param(JSON.stringify(sends.map((s) => s.outbox))), hold.seen)})`,
      hold.take,
      queuedParts.usage,
      ...(admit ? [admit.live] : []),
    ];
    let currency: string;
    try {
      // The keys first (the result's columns are evaluated in order): a send whose key another
      // send holds waits for it holding nothing that one needs.
      const [row] = await this.messages.statement<{ currency: string }>(
        `WITH ${ctes.join(', ')}
         SELECT ${held?.held ?? '0'} AS keys,
                (SELECT currency FROM hold_b) AS currency,
                abort_unless(${gate}, 'a key, the balance or a tier counter does not allow the group') AS held,
                ${admit?.checked ?? 'true'} AS checked`,
        params,
      );
      currency = row.currency;
    } catch (err) {
      if (isPgError(err, PG_ERROR.serializationFailure)) return null;
      throw err;
    }
    return sends.map(() => ({ accepted: true, currency }));
  }

  /**
   * A group in one transaction that locks the sends' Idempotency-Keys, the apps' tier counters and
   * the balance, then decides each send: one whose key another request took over is refused.
   */
  private commitLocked(userId: string, sends: SendRecord[]): Promise<SendOutcome[]> {
    return this.messages.transaction(async (em) => {
      // Locks in one order everywhere: the keys (by key), the apps' tier counters (by id), then the balance.
      const keys = await this.keys.lockHeld(
        em,
        userId,
        sends.flatMap((s) => (s.lease ? [s.lease] : [])),
      );
      const gates = await this.tierGates(em, sends);
      const balance = await this.billing.lockForHolds(em, userId);
      const outcomes: SendOutcome[] = [];
      const accepted: SendRecord[] = [];
      const holds: { messageId: string; amount: Units }[] = [];
      let held: Units = 0n;
      for (const send of sends) {
        if (send.lease && !keys.has(send.lease.key)) {
          outcomes.push({ accepted: false, problem: keyTakenOver() });
          continue;
        }
        const gate = send.tier ? gates.get(send.tier.appId) : undefined;
        if (gate && !gate.allows(send.message.recipient) && !gate.exact) {
          // The counter includes recipients that left the window: sweep them, then decide exactly.
          await this.tiers.sweepApp(em, gate.appId);
          const asks = [{ appId: gate.appId, recipients: this.recipientsOf(sends, gate.appId) }];
          gate.replace((await this.tiers.snapshots(em, asks, true)).get(gate.appId)!);
        }
        if (gate && !gate.allows(send.message.recipient)) {
          outcomes.push({ accepted: false, problem: await this.tierExceeded(em, send) });
          continue;
        }
        const price = toUnits(send.message.price);
        if (!balance || !this.billing.covers(balance, held, price)) {
          outcomes.push({ accepted: false, problem: insufficientBalance(send) });
          continue;
        }
        held += price;
        gate?.admit(send.message.recipient);
        holds.push({ messageId: send.message.id, amount: price });
        accepted.push(send);
        outcomes.push({ accepted: true, currency: balance.currency });
      }
      if (accepted.length && balance) {
        await this.messages.insertQueued(
          em,
          accepted.map((s) => ({ ...s.message, currency: balance.currency })),
        );
        await this.outbox.insert(
          em,
          accepted.map((s) => s.outbox),
        );
        await this.billing.hold(em, balance, holds);
        await this.tiers.record(em, [...gates.values()]);
        await this.keys.recordHeld(
          em,
          userId,
          accepted.flatMap((s) => (s.lease ? [{ ...s.lease, messageId: s.message.id }] : [])),
        );
        for (const s of accepted) await s.alsoWrite?.(em);
      }
      return outcomes;
    });
  }

  private recipientsOf(sends: SendRecord[], appId: number): string[] {
    return [...new Set(sends.filter((s) => s.tier?.appId === appId).map((s) => s.message.recipient))];
  }

  private async tierGates(em: EntityManager, sends: SendRecord[]): Promise<Map<number, TierGate>> {
    const caps = new Map<number, number>();
    for (const s of sends) if (s.tier && !caps.has(s.tier.appId)) caps.set(s.tier.appId, s.tier.cap);
    const gates = new Map<number, TierGate>();
    if (caps.size === 0) return gates;
    const asks = [...caps.keys()].map((appId) => ({ appId, recipients: this.recipientsOf(sends, appId) }));
    for (const [appId, snapshot] of await this.tiers.snapshots(em, asks)) {
      gates.set(appId, new TierGate(appId, caps.get(appId)!, snapshot));
    }
    return gates;
  }

  private async tierExceeded(em: EntityManager, send: SendRecord): Promise<ProblemError> {
    const tier = send.tier!;
    return new TooManyRequestsProblem(
      'messaging-tier-exceeded',
      'Messaging tier exceeded',
      `The app's tier (${tier.label}) allows template messages to ${tier.cap} unique recipients in 24 hours.`,
      await this.tiers.freesInSeconds(em, tier.appId),
    );
  }
}

function insufficientBalance(send: SendRecord): ProblemError {
  return new UnprocessableProblem(
    'insufficient-balance',
    'Insufficient balance',
    `The available balance does not cover the price of this ${send.message.category} message (${send.message.price}).`,
  );
}
