import { applyForwardOnly, StatusStep } from './forward-only';

const SENT = 1;
const DELIVERED = 2;
const READ = 3;
const step = (messageId: string, rank: number, userId = 'u1'): StatusStep => ({ userId, messageId, rank });

describe('applyForwardOnly', () => {
  it('fans out a message whose statuses come in lifecycle order, and raises its rank to the last', () => {
    const { advances, raised } = applyForwardOnly(
      [step('m1', SENT), step('m1', DELIVERED), step('m1', READ)],
      new Map(),
    );
    expect(advances).toEqual([true, true, true]);
    expect([...raised.values()]).toEqual([step('m1', READ)]);
  });

  it('drops a status that ranks at or below one of its message fanned out before or earlier in the batch', () => {
    const { advances, raised } = applyForwardOnly(
      [step('m1', SENT), step('m1', READ), step('m1', DELIVERED), step('m1', READ), step('m2', DELIVERED)],
      new Map([['u1|m1', SENT]]),
    );
    expect(advances).toEqual([false, true, false, false, true]);
    expect([...raised.values()]).toEqual([step('m1', READ), step('m2', DELIVERED)]);
  });

  it('keeps every event that is no status, and tells tenants apart', () => {
    const { advances, raised } = applyForwardOnly(
      [null, step('m1', DELIVERED, 'u2'), null],
      new Map([['u1|m1', READ]]),
    );
    expect(advances).toEqual([true, true, true]);
    expect([...raised.keys()]).toEqual(['u2|m1']);
  });

  it('raises nothing when no status moves its message forward', () => {
    expect(applyForwardOnly([step('m1', DELIVERED)], new Map([['u1|m1', READ]])).raised.size).toBe(0);
  });
});
