import { SandboxConfig } from '../config';
import { SandboxPricingService } from './pricing.service';

const pricing = (setting: 'on' | 'off' = 'on') =>
  new SandboxPricingService(Object.assign(new SandboxConfig(), { SANDBOX_STATUS_PRICING: setting }));

describe('SandboxPricingService: what the emulated channel bills', () => {
  it('bills templates at their category; free-form messages are free customer service', () => {
    const p = pricing();
    expect(p.pricingOf('100', '79990001122', 'marketing')).toEqual({
      billable: true,
      pricing_model: 'PMP',
      category: 'marketing',
      type: 'regular',
    });
    expect(p.pricingOf('100', '79990001122', 'utility')).toMatchObject({ type: 'regular', billable: true });
    expect(p.pricingOf('100', '79990001122', 'service')).toEqual({
      billable: false,
      pricing_model: 'PMP',
      category: 'service',
      type: 'free_customer_service',
    });
  });

  it('a utility template inside the window the recipient opened (on that number, within 24 h) is free', () => {
    const p = pricing();
    const day = 24 * 3600 * 1000;
    p.customerWrote('100', '79990001122', Date.now() - day + 60_000);
    expect(p.pricingOf('100', '79990001122', 'utility')).toMatchObject({
      category: 'utility',
      type: 'free_customer_service',
      billable: false,
    });
    // Marketing is billed in the window too; another number, or a closed window, is billed.
    expect(p.pricingOf('100', '79990001122', 'marketing')).toMatchObject({ type: 'regular' });
    expect(p.pricingOf('200', '79990001122', 'utility')).toMatchObject({ type: 'regular' });
    p.customerWrote('100', '79990003344', Date.now() - day - 1);
    expect(p.pricingOf('100', '79990003344', 'utility')).toMatchObject({ type: 'regular' });
  });

  it('a test chooses the category, the type or no pricing per recipient; off leaves pricing out', () => {
    const p = pricing();
    p.setRule({ to: '79990005555', category: 'marketing_lite' });
    expect(p.pricingOf('100', '79990005555', 'marketing')).toMatchObject({
      category: 'marketing_lite',
      type: 'regular',
    });
    p.setRule({ to: '79990006666', type: 'free_entry_point' });
    expect(p.pricingOf('100', '79990006666', 'marketing')).toMatchObject({
      category: 'marketing',
      type: 'free_entry_point',
      billable: false,
    });
    p.setRule({ to: '79990007777', omit: true });
    expect(p.pricingOf('100', '79990007777', 'marketing')).toBeNull();
    // A template the sandbox does not store has no pricing unless a rule names its category.
    expect(p.pricingOf('100', '79990001122', null)).toBeNull();
    expect(p.pricingOf('100', '79990005555', null)).toMatchObject({ category: 'marketing_lite' });
    // `*` and digits: every recipient ending in them; an exact rule comes first.
    p.setRule({ to: '*22', type: 'free_entry_point' });
    expect(p.pricingOf('100', '79990001122', 'utility')).toMatchObject({ type: 'free_entry_point', billable: false });
    expect(p.pricingOf('100', '79990001133', 'utility')).toMatchObject({ type: 'regular' });
    p.setRule({ to: '79990001122', category: 'marketing' });
    expect(p.pricingOf('100', '79990001122', 'utility')).toMatchObject({ category: 'marketing', type: 'regular' });
    expect(p.listRules()).toHaveLength(5);
    p.clear();
    expect(p.listRules()).toEqual([]);
    expect(pricing('off').pricingOf('100', '79990001122', 'marketing')).toBeNull();
  });
});
