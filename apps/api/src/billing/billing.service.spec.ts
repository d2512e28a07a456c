import { BalancesRepository } from './balances.repository';
import { BillingService, fromUnits, toUnits } from './billing.service';

describe('BillingService', () => {
  it('money is counted exactly in ten-thousandths', () => {
    expect(toUnits(0.02)).toBe(200n);
    expect(toUnits('12345.6789')).toBe(123456789n);
    expect(toUnits('7')).toBe(70000n);
    expect(toUnits(0.0001)).toBe(1n);
    expect(toUnits(-0.05)).toBe(-500n);
    // 0.1 + 0.2 in floating point is not 0.3; in units it is.
    expect(fromUnits(toUnits(0.1) + toUnits(0.2))).toBe('0.3000');
    expect(fromUnits(-500n)).toBe('-0.0500');
  });

  it('holds of a group are checked against what the group already holds', () => {
    const billing = new BillingService({} as BalancesRepository);
    const balance = { userId: 'u', currency: 'USD', available: toUnits('0.05') };
    expect(billing.covers(balance, 0n, toUnits(0.02))).toBe(true);
    expect(billing.covers(balance, toUnits(0.04), toUnits(0.02))).toBe(false);
    expect(billing.covers(balance, toUnits(0.03), toUnits(0.02))).toBe(true);
  });

  it('records a group of holds with their exact total in one call', async () => {
    const insertHolds = jest.fn().mockResolvedValue(undefined);
    const billing = new BillingService({ insertHolds } as unknown as BalancesRepository);
    const balance = { userId: 'u', currency: 'EUR', available: toUnits(10) };
    await billing.hold({} as never, balance, [
      { messageId: 'a', amount: toUnits(0.05) },
      { messageId: 'b', amount: toUnits(0.02) },
    ]);
    expect(insertHolds).toHaveBeenCalledWith(
      {},
      'u',
      'EUR',
      [
        { messageId: 'a', amount: '0.0500' },
        { messageId: 'b', amount: '0.0200' },
      ],
      '0.0700',
    );
    await billing.hold({} as never, balance, []);
    expect(insertHolds).toHaveBeenCalledTimes(1);
  });
});
