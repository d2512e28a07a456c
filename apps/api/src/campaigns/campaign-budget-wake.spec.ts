import type { DataSource } from 'typeorm';
import type { EventEnvelope } from '@app/contracts';
import { EventHandlersRegistry } from '../events';
import { CampaignBudgetWake } from './campaign-budget-wake';
import type { CampaignRunner } from './campaign-runner';

const CAMPAIGN = '0190b3a4-7c2e-7000-8000-000000000001';
const event = (campaignId: unknown): EventEnvelope =>
  ({
    id: 'evt_1',
    type: 'message.failed',
    created_at: 1,
    data: { message_id: 'm1', campaign_id: campaignId },
  }) as never;

describe('CampaignBudgetWake', () => {
  const setup = (waiting: boolean) => {
    const query = jest.fn().mockResolvedValue(waiting ? [{ id: CAMPAIGN }] : []);
    const tick = jest.fn().mockResolvedValue(0);
    const registry = new EventHandlersRegistry();
    const wake = new CampaignBudgetWake({ query } as unknown as DataSource, registry, {
      tick,
    } as unknown as CampaignRunner);
    wake.onApplicationBootstrap();
    return { query, tick, registry };
  };
  const settle = () => new Promise((r) => setImmediate(r));

  it('wakes the runner when a settled hold belongs to a campaign waiting for its budget', async () => {
    const { tick, registry } = setup(true);
    await registry.dispatch(event(CAMPAIGN));
    await settle();
    // One pass that may have been under way, then a fresh one that counts the settled hold.
    expect(tick).toHaveBeenCalledTimes(2);
  });

  it('leaves the runner alone for a campaign that does not wait, and for a message of no campaign', async () => {
    const { tick, query, registry } = setup(false);
    await registry.dispatch(event(CAMPAIGN));
    await registry.dispatch(event(undefined));
    await registry.dispatch(event('not-an-id'));
    await settle();
    expect(query).toHaveBeenCalledTimes(1);
    expect(tick).not.toHaveBeenCalled();
  });

  it('coalesces a burst of settled holds into a bounded number of passes', async () => {
    const { tick, registry } = setup(true);
    await Promise.all(Array.from({ length: 20 }, () => registry.dispatch(event(CAMPAIGN))));
    await settle();
    await settle();
    expect(tick.mock.calls.length).toBeLessThanOrEqual(3);
    expect(tick.mock.calls.length).toBeGreaterThanOrEqual(2);
  });
});
