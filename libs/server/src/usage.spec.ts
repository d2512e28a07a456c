import { UsageReport } from '@app/contracts';
import { ProblemError } from './problem';
import { usageCsv, usageLastDay, usagePeriod } from './usage';

const row = (over: Partial<UsageReport['data'][number]> = {}): UsageReport['data'][number] => ({
  hour: '2026-11-25T13:00:00Z',
  channel: 'whatsapp',
  category: 'MARKETING',
  queued: 3,
  sent: 2,
  delivered: 2,
  read: 1,
  failed: 1,
  cost: 0.1,
  currency: 'USD',
  ...over,
});

const fieldsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    return ((err as ProblemError).extensions.errors as { field: string }[]).map((e) => e.field);
  }
  return [];
};

describe('usage report', () => {
  it('CSV: a header row, CRLF line ends, fields quoted as RFC 4180 asks', () => {
    expect(usageCsv({ data: [row(), row({ channel: 'a,"b"', currency: 'x\ny' })] })).toBe(
      'hour,channel,category,queued,sent,delivered,read,failed,cost,currency\r\n' +
        '2026-11-25T13:00:00Z,whatsapp,MARKETING,3,2,2,1,1,0.1,USD\r\n' +
        '2026-11-25T13:00:00Z,"a,""b""",MARKETING,3,2,2,1,1,0.1,"x\ny"\r\n',
    );
  });

  it('a period runs from 00:00 UTC of from through the whole day of to (both included), at most 93 days', () => {
    // "Today": one day, from its 00:00 UTC to the next day's.
    expect(usagePeriod({ from: '2026-11-26', to: '2026-11-26' })).toEqual({
      from: new Date('2026-11-26T00:00:00Z'),
      to: new Date('2026-11-27T00:00:00Z'),
    });
    // 93 days, both ends counted: January, February and March 2026 (31 + 28 + 31) and 3 days of April.
    expect(usagePeriod({ from: '2026-01-01', to: '2026-04-03' })).toEqual({
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date('2026-04-04T00:00:00Z'),
    });
    expect(fieldsOf(() => usagePeriod({ from: '2026-01-01', to: '2026-04-04' }))).toEqual(['to']);
    expect(fieldsOf(() => usagePeriod({ from: '2026-01-02', to: '2026-01-01' }))).toEqual(['to']);
    expect(fieldsOf(() => usagePeriod({ from: '2026-02-29', to: '2026-03-01' }))).toEqual(['from']);
    expect(fieldsOf(() => usagePeriod({ from: '2026-01-01', to: '2026-01-02', channel: 'sms' }))).toEqual(['channel']);
    expect(fieldsOf(() => usagePeriod({ from: '2026-01-01', to: '2026-01-02', category: 'PROMO' }))).toEqual([
      'category',
    ]);
  });

  it('the last day of a period that ends at a day boundary is the day before it (the period is the same)', () => {
    const period = usagePeriod({ from: '2026-12-25', to: '2027-01-01' });
    expect(usageLastDay(period.to)).toBe('2027-01-01');
    expect(usagePeriod({ from: '2026-12-25', to: usageLastDay(period.to) })).toEqual(period);
  });
});
