import { campaignDefinitionErrors } from './campaign-definition';
import { variantIndexOf } from './campaign-variants';

const base = {
  name: 'Sale',
  template: 'sale_a',
  audience: { list: 'vip' },
  channels: ['whatsapp'],
};
const variant = (name: string, share: number, over: Record<string, unknown> = {}) => ({
  name,
  template: `tpl_${name.toLowerCase()}`,
  share,
  ...over,
});
const fields = (raw: unknown) => [...new Set(campaignDefinitionErrors(raw).map((e) => e.field))].sort();

describe('campaign variants', () => {
  it('takes 2 to 4 variants whose shares sum to 100', () => {
    expect(fields({ ...base, variants: [variant('A', 50), variant('B', 50)] })).toEqual([]);
    expect(
      fields({
        ...base,
        variants: [
          variant('A', 25, { params: ['{{contact.name}}'], language: 'en' }),
          variant('B', 25),
          variant('C', 25),
          variant('D', 25),
        ],
      }),
    ).toEqual([]);
    expect(fields({ ...base, variants: null })).toEqual([]);
  });

  it('refuses 1 or 5 variants, shares not summing to 100, and bad fields, each named', () => {
    expect(fields({ ...base, variants: [variant('A', 100)] })).toEqual(['variants']);
    expect(fields({ ...base, variants: [1, 2, 3, 4, 5].map((i) => variant(`V${i}`, 20)) })).toEqual(['variants']);
    expect(fields({ ...base, variants: [variant('A', 50), variant('B', 40)] })).toEqual(['variants']);
    expect(fields({ ...base, variants: 'ab' })).toEqual(['variants']);
    expect(
      fields({
        ...base,
        variants: [
          variant('A', 0, { template: 'Bad-Name', language: 'english', params: ['{{contact.age}}'], x: 1 }),
          variant('A', 100.5),
        ],
      }),
    ).toEqual([
      'variants[0].language',
      'variants[0].params[0]',
      'variants[0].share',
      'variants[0].template',
      'variants[0].x',
      'variants[1].name',
      'variants[1].share',
    ]);
  });

  it('assigns a contact the same variant every time, and splits contacts by the shares', () => {
    const campaign = '0190b3a4-7c2e-7000-8000-000000000001';
    const shares = [70, 30];
    const counts = [0, 0];
    for (let i = 0; i < 2000; i++) {
      const contact = `0190b3a4-7c2e-7000-8000-${String(i).padStart(12, '0')}`;
      const v = variantIndexOf(campaign, contact, shares);
      expect(variantIndexOf(campaign, contact.toUpperCase(), shares)).toBe(v);
      counts[v]++;
    }
    expect(counts[0]).toBeGreaterThan(1250);
    expect(counts[0]).toBeLessThan(1550);
    expect(counts[0] + counts[1]).toBe(2000);
  });
});

describe('campaign engagement filter', () => {
  const withEngagement = (engagement: unknown) => ({ ...base, audience: { filter: { lists: ['vip'], engagement } } });

  it('takes each engagement, within_days optional', () => {
    for (const did of ['received', 'read', 'clicked', 'replied', 'not_received']) {
      expect(fields(withEngagement({ campaign_id: '0190b3a4-7c2e-7000-8000-000000000001', did }))).toEqual([]);
    }
    expect(
      fields(withEngagement({ campaign_id: '0190b3a4-7c2e-7000-8000-000000000001', did: 'read', within_days: 365 })),
    ).toEqual([]);
  });

  it('names each bad field', () => {
    expect(fields(withEngagement({ campaign_id: 'x', did: 'opened', within_days: 366, since: 1 }))).toEqual([
      'audience.filter.engagement.campaign_id',
      'audience.filter.engagement.did',
      'audience.filter.engagement.since',
      'audience.filter.engagement.within_days',
    ]);
    expect(fields(withEngagement('clicked'))).toEqual(['audience.filter.engagement']);
  });
});
