import type { EntityManager } from 'typeorm';
import { sqlRows } from '@app/database';
import { fromUnits, toUnits, Units } from '../billing/charges';
import type { CampaignRow, CampaignsRepository } from './campaigns.repository';

/**
 * What a campaign's budget counts now, in ten-thousandths (docs/campaigns.md#the-budget): the holds
 * of its messages in flight, what was captured, and what runners have reserved for the sends they
 * are making (and, for a failover route with channels left to try, its dearest price), all read by
 * one statement.
 */
export interface BudgetMoney {
  held: Units;
  captured: Units;
  reserved: Units;
}

/** One claimed recipient and the most its message may hold: the dearest channel of its route. */
export interface BudgetNeed {
  seq: number;
  need: Units;
}

/**
 * What the budget lets a batch do: the recipients to send now (in order, each within what is left),
 * and, for the first one that does not fit, whether the campaign waits for holds to settle (`wait`:
 * a released hold frees room) or pauses (`pause`: what was captured alone leaves no room for it).
 */
export interface BudgetFit {
  send: number[];
  rest: number[];
  verdict: null | { kind: 'wait' | 'pause'; need: Units; left: Units };
}

/**
 * Fits a batch (in audience order) into a budget, exactly in ten-thousandths: held + captured +
 * reserved + each recipient's need may reach the budget, never pass it. The recipients after the
 * first that does not fit wait with it, so the audience order is kept.
 */
export function fitBudget(budget: Units, money: BudgetMoney, needs: BudgetNeed[]): BudgetFit {
  let room = budget - money.held - money.captured - money.reserved;
  const send: number[] = [];
  for (let i = 0; i < needs.length; i++) {
    const { need } = needs[i];
    if (need <= room) {
      room -= need;
      send.push(needs[i].seq);
      continue;
    }
    const left = budget - money.captured;
    return {
      send,
      rest: needs.slice(i).map((n) => n.seq),
      verdict: { kind: need > left ? 'pause' : 'wait', need, left },
    };
  }
  return { send, rest: [], verdict: null };
}

/** The budget in ten-thousandths; null without one. */
export function budgetUnits(c: CampaignRow): Units | null {
  const budget = c.definition.budget;
  return budget === null || budget === undefined ? null : toUnits(budget);
}

/** The pause's words when what was captured leaves no room for the next message. */
export function budgetReachedDetail(c: CampaignRow, verdict: NonNullable<BudgetFit['verdict']>): string {
  return (
    `The budget of ${c.definition.budget} leaves ${fromUnits(verdict.left)} after what was charged: ` +
    `less than the next message's price (${fromUnits(verdict.need)}).`
  );
}

/**
 * What a campaign's budget counts now, in one statement so that a send committing meanwhile is
 * counted once (as its recipient's reservation, or as its hold): holds of its messages still held,
 * what was captured, the reservations of recipients a runner holds for a send (but `excluding`),
 * and the reservations of sent recipients whose failover route still has a channel to try (its
 * next attempt will hold again).
 */
export async function budgetMoney(em: EntityManager, id: string, excluding: number[]): Promise<BudgetMoney> {
  const [row] = await sqlRows<{ held: string; captured: string; reserved: string }>(
    em,
    `SELECT
       (SELECT coalesce(sum(h.amount), 0) FROM messages m JOIN holds h ON h.message_id = m.id
         WHERE m.campaign_id = $1 AND h.status = 'HELD') AS held,
       (SELECT coalesce(sum(m.charged), 0) FROM messages m WHERE m.campaign_id = $1) AS captured,
       (SELECT coalesce(sum(r.reserved), 0) FROM campaign_recipients r
         WHERE r.campaign_id = $1 AND r.reserved IS NOT NULL
           AND ((r.state = 'pending' AND r.claimed_until > now() AND r.seq <> ALL($2::integer[]))
             OR (r.state = 'queued' AND EXISTS (SELECT 1 FROM failover_steps s WHERE s.parent_id = r.message_id)))
       ) AS reserved`,
    [id, excluding],
  );
  return { held: toUnits(row.held), captured: toUnits(row.captured), reserved: toUnits(row.reserved) };
}

/**
 * Reserves a claimed batch within the campaign's budget, under the campaign's row lock (the lock
 * every runner takes to count and reserve, so two replicas never spend the same room): what the
 * budget counts is read in one statement, the recipients that fit keep their need as `reserved`
 * (counted until their send commits its hold, or their claim lapses after a crash), the others
 * are given back still due; a campaign that waits keeps the price it waits for (`budget_wait`), so
 * that its next ticks only count again until it fits. Their sends run after this commits.
 */
export async function reserveWithinBudget(
  repo: CampaignsRepository,
  c: CampaignRow,
  budget: Units,
  needs: BudgetNeed[],
): Promise<BudgetFit> {
  return repo.transaction(async (em) => {
    await repo.find(c.id, em, true);
    const fit = fitBudget(
      budget,
      await budgetMoney(
        em,
        c.id,
        needs.map((n) => n.seq),
      ),
      needs,
    );
    const send = new Set(fit.send);
    const kept = needs.filter((n) => send.has(n.seq));
    if (kept.length) {
      await em.query(
        `UPDATE campaign_recipients r SET reserved = x.need
           FROM unnest($2::integer[], $3::numeric[]) AS x(seq, need)
          WHERE r.campaign_id = $1 AND r.seq = x.seq AND r.state = 'pending'`,
        [c.id, kept.map((n) => n.seq), kept.map((n) => fromUnits(n.need))],
      );
    }
    await repo.release(c.id, fit.rest, null, em);
    const wait = fit.verdict?.kind === 'wait' ? fromUnits(fit.verdict.need) : null;
    await em.query(`UPDATE campaigns SET budget_wait = $2 WHERE id = $1`, [c.id, wait]);
    return fit;
  });
}

/**
 * In the runner's tick, the campaign's row locked: a campaign waiting for its budget counts again
 * (one read, nothing claimed). Null when the price it waits for fits now (the wait is over);
 * else `wait` (still) or `pause` (what was captured leaves no room for it).
 */
export async function budgetStillWaits(
  em: EntityManager,
  c: CampaignRow,
  budget: Units,
): Promise<BudgetFit['verdict']> {
  const need = toUnits(c.budget_wait!);
  const { verdict } = fitBudget(budget, await budgetMoney(em, c.id, []), [{ seq: 0, need }]);
  if (!verdict) await em.query(`UPDATE campaigns SET budget_wait = NULL WHERE id = $1`, [c.id]);
  return verdict;
}
