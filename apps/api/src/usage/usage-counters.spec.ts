import { countStatusMove, noStatusCounts, usageUpsert } from './usage-counters';

describe('usage counters', () => {
  it('a move along the delivery chain counts each step it reaches or passes over that the message had not reached', () => {
    expect(countStatusMove('QUEUED', 'SENT', noStatusCounts())).toEqual({ sent: 1, delivered: 0, read: 0, failed: 0 });
    expect(countStatusMove('QUEUED', 'READ', noStatusCounts())).toEqual({ sent: 1, delivered: 1, read: 1, failed: 0 });
    expect(countStatusMove('SENT', 'READ', noStatusCounts())).toEqual({ sent: 0, delivered: 1, read: 1, failed: 0 });
    expect(countStatusMove('SENT', 'FAILED', noStatusCounts())).toEqual({ sent: 0, delivered: 0, read: 0, failed: 1 });
  });

  it('moves one after another add up as the single move over the same steps', () => {
    const stepwise = countStatusMove('SENT', 'DELIVERED', countStatusMove('QUEUED', 'SENT', noStatusCounts()));
    expect(stepwise).toEqual(countStatusMove('QUEUED', 'DELIVERED', noStatusCounts()));
  });

  it('adds to the row of the hour of acceptance, upserted in key order', () => {
    const sql = usageUpsert('m', { queued: '1', cost: 's.amount' });
    expect(sql).toContain(`date_trunc('hour', s.created_at, 'UTC')`);
    expect(sql).toContain('sum(1), sum(s.amount)');
    expect(sql).toContain('ORDER BY 1, 2, 3, 4');
    expect(sql).toContain('queued = u.queued + excluded.queued, cost = u.cost + excluded.cost');
  });
});
