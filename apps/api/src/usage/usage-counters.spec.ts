import { statusIncrements, usageUpsert } from './usage-counters';

describe('usage counters', () => {
  it('a move along the delivery chain counts each step it reaches or passes over that the message had not reached', () => {
    expect(statusIncrements('SENT')).toEqual({ sent: `(s.prev_status IN ('QUEUED'))::int` });
    expect(statusIncrements('READ')).toEqual({
      sent: `(s.prev_status IN ('QUEUED'))::int`,
      delivered: `(s.prev_status IN ('QUEUED', 'SENT'))::int`,
      read: `(s.prev_status IN ('QUEUED', 'SENT', 'DELIVERED'))::int`,
    });
    expect(statusIncrements('FAILED')).toEqual({ failed: '1' });
  });

  it('adds to the row of the hour of acceptance, upserted in key order', () => {
    const sql = usageUpsert('m', { queued: '1', cost: 's.amount' });
    expect(sql).toContain(`date_trunc('hour', s.created_at, 'UTC')`);
    expect(sql).toContain('sum(1), sum(s.amount)');
    expect(sql).toContain('ORDER BY 1, 2, 3, 4');
    expect(sql).toContain('queued = u.queued + excluded.queued, cost = u.cost + excluded.cost');
  });
});
