import { CAMPAIGN_LIMITS, campaignDefinitionErrors, campaignInstant, campaignParamParts } from './campaign-definition';

const valid = {
  name: 'November sale',
  template: 'sale_announcement',
  language: 'en',
  params: ['{{contact.name}}', '20%'],
  audience: { list: 'customers' },
  channels: ['whatsapp', 'telegram'],
};

/** The fields refused, each once, sorted. */
const refused = (raw: unknown) => [...new Set(campaignDefinitionErrors(raw).map((e) => e.field))].sort();
const withSchedule = (schedule: unknown) => refused({ ...valid, schedule });

describe('campaignDefinitionErrors', () => {
  it('takes a full definition, and one with only the required fields', () => {
    expect(
      refused({
        ...valid,
        media_url: 'https://cdn.example.com/a.jpg',
        schedule: { start_at: '2026-12-01T09:00:00+03:00', end_by: 1_796_205_600 },
        quiet_hours: { start: '21:00', end: '09:00' },
        rate: 50,
        budget: 100,
      }),
    ).toEqual([]);
    const { params: _p, language: _l, ...bare } = valid;
    expect(refused(bare)).toEqual([]);
    expect(refused({ ...valid, language: null, params: null, schedule: null, quiet_hours: null, rate: null })).toEqual(
      [],
    );
  });

  it('names every bad field, unknown ones at any depth included', () => {
    expect(
      refused({
        name: '   ',
        template: 'Sale!',
        language: 'English',
        params: ['x'.repeat(CAMPAIGN_LIMITS.paramLength + 1)],
        media_url: 'http://cdn.example.com/a.jpg',
        audience: { list: 'a', extra: 1 },
        channels: ['sms'],
        schedule: { start_at: '2026-12-01 09:00', when: 'now' },
        quiet_hours: { start: '24:00', end: '9:00', tz: 'UTC' },
        rate: 0,
        budget: 0,
        colour: 'red',
      }),
    ).toEqual(
      [
        'audience.extra',
        'budget',
        'channels',
        'colour',
        'language',
        'media_url',
        'name',
        'params',
        'quiet_hours.end',
        'quiet_hours.start',
        'quiet_hours.tz',
        'rate',
        'schedule.start_at',
        'schedule.when',
        'template',
      ].sort(),
    );
    expect(refused([valid])).toEqual(['body']);
  });

  it('holds each limit at its edge', () => {
    const L = CAMPAIGN_LIMITS;
    expect(refused({ ...valid, name: 'x'.repeat(L.nameLength) })).toEqual([]);
    expect(refused({ ...valid, name: 'x'.repeat(L.nameLength + 1) })).toEqual(['name']);
    expect(refused({ ...valid, params: Array.from({ length: L.params }, () => 'p'.repeat(L.paramLength)) })).toEqual(
      [],
    );
    expect(refused({ ...valid, params: Array.from({ length: L.params + 1 }, () => 'p') })).toEqual(['params']);
    const url = (n: number) => `https://cdn.example.com/${'a'.repeat(n - 'https://cdn.example.com/'.length)}`;
    expect(refused({ ...valid, media_url: url(L.mediaUrlLength) })).toEqual([]);
    expect(refused({ ...valid, media_url: url(L.mediaUrlLength + 1) })).toEqual(['media_url']);
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `ext:${i}`);
    expect(refused({ ...valid, audience: { contact_ids: ids(L.contactIds) } })).toEqual([]);
    expect(refused({ ...valid, audience: { contact_ids: ids(L.contactIds + 1) } })).toEqual(['audience.contact_ids']);
    expect(refused({ ...valid, audience: { contact_ids: [] } })).toEqual(['audience.contact_ids']);
    expect(refused({ ...valid, channels: ['whatsapp', 'telegram', 'max'] })).toEqual([]);
    expect(refused({ ...valid, channels: [] })).toEqual(['channels']);
    expect(refused({ ...valid, channels: ['whatsapp', 'whatsapp'] })).toEqual(['channels']);
    expect(refused({ ...valid, rate: L.minRate, budget: L.maxBudget })).toEqual([]);
    expect(refused({ ...valid, rate: L.maxRate, budget: 0.01 })).toEqual([]);
    expect(refused({ ...valid, rate: 0.09, budget: L.maxBudget + 1 })).toEqual(['budget', 'rate']);
    expect(refused({ ...valid, rate: L.maxRate + 1, budget: -1 })).toEqual(['budget', 'rate']);
    expect(refused({ ...valid, budget: Number.POSITIVE_INFINITY, rate: '5' })).toEqual(['budget', 'rate']);
  });

  it('takes exactly one audience, each by the contacts rules', () => {
    expect(refused({ ...valid, audience: {} })).toEqual(['audience']);
    expect(refused({ ...valid, audience: { list: 'a', filter: { lists: ['b'] } } })).toEqual(['audience']);
    expect(refused({ ...valid, audience: { list: null } })).toEqual(['audience']);
    expect(refused({ ...valid, audience: { list: 'a/b' } })).toEqual(['audience.list']);
    expect(refused({ ...valid, audience: { list: 'l'.repeat(65) } })).toEqual(['audience.list']);
    expect(
      refused({ ...valid, audience: { contact_ids: ['0192f0c4-a0f8-7cc3-a1f0-e4d2b3c4d5e6', 'crm-1', 'ext:', 7] } }),
    ).toEqual(['audience.contact_ids[1]', 'audience.contact_ids[2]', 'audience.contact_ids[3]']);
    expect(refused({ ...valid, audience: { filter: {} } })).toEqual([]);
    expect(
      refused({
        ...valid,
        audience: {
          filter: {
            lists: Array.from({ length: 21 }, (_, i) => `l${i}`),
            attributes: { 'bad key': 1, nested: { a: 1 }, plan: 'pro' },
            other: 1,
          },
        },
      }),
    ).toEqual([
      'audience.filter.attributes.bad key',
      'audience.filter.attributes.nested',
      'audience.filter.lists',
      'audience.filter.other',
    ]);
  });

  it('names params[i] for each param referring to anything but a contact field', () => {
    expect(
      refused({
        ...valid,
        params: [
          'ok {{contact.name}}',
          '{{contact.phone}}',
          '{{user.name}}',
          '{{contact.attributes.}}',
          '{{contact.attributes.bad key}}',
          '{{}}',
          'a single { brace } is text, {{ unclosed',
          '{{contact.attributes.constructor}} {{contact.attributes.__proto__}}',
        ],
      }),
    ).toEqual(['params[1]', 'params[2]', 'params[3]', 'params[4]', 'params[5]']);
    expect(campaignDefinitionErrors({ ...valid, params: ['{{contact.secret}}'] })[0].message).toMatch(
      /\{\{contact\.secret\}\} is not a contact field/,
    );
  });

  it("names params[i] for a reference to anything but the contact's name, external id, language or attributes", () => {
    expect(refused({ ...valid, params: ['{{contact.name}}', 'hi {{contact.phone}}', '{{order.id}}'] })).toEqual([
      'params[1]',
      'params[2]',
    ]);
  });

  it('takes a time zoned with 0 to 9 fractional digits, or Unix seconds, and nothing else', () => {
    for (const at of [
      '2026-12-01T09:00Z',
      '2026-12-01T09:00:00+03:00',
      '2026-12-01T09:00:00.1Z',
      '2026-12-01T09:00:00.123456789-05:30',
      0,
      1_796_115_600,
      CAMPAIGN_LIMITS.maxUnixSeconds,
    ]) {
      expect([at, withSchedule({ start_at: at })]).toEqual([at, []]);
    }
    for (const at of [
      '2026-12-01T09:00:00',
      '2026-12-01T09:00:00.1234567890Z',
      '2026-12-01 09:00Z',
      '2026-02-30T09:00:00Z',
      '2026-12-01T24:00:00Z',
      '1796115600',
      1_796_115_600.5,
      -1,
      CAMPAIGN_LIMITS.maxUnixSeconds + 1,
      'tomorrow',
    ]) {
      expect([at, withSchedule({ end_by: at })]).toEqual([at, ['schedule.end_by']]);
    }
    expect(withSchedule({ start_at: '2026-12-02T09:00:00Z', end_by: '2026-12-02T12:00:00+03:00' })).toEqual([
      'schedule.end_by',
    ]);
    expect(withSchedule({ start_at: 1_796_115_600, end_by: '2026-12-01T09:00:00.001Z' })).toEqual([]);
    expect(withSchedule({ start_at: 1_796_115_600, end_by: '2026-12-01T12:00:00+03:00' })).toEqual(['schedule.end_by']);
  });

  it('refuses quiet hours starting when they end', () => {
    expect(refused({ ...valid, quiet_hours: { start: '21:00', end: '21:00' } })).toEqual(['quiet_hours.end']);
    expect(refused({ ...valid, quiet_hours: '21:00-09:00' })).toEqual(['quiet_hours']);
  });
});

describe('campaignInstant', () => {
  it('reads both forms as the same instant, the zone applied', () => {
    expect(campaignInstant('2026-12-01T09:00:00+03:00')?.toISOString()).toBe('2026-12-01T06:00:00.000Z');
    expect(campaignInstant('2026-12-01T06:00:00.123456789Z')?.toISOString()).toBe('2026-12-01T06:00:00.123Z');
    expect(campaignInstant(1_796_104_800)?.toISOString()).toBe('2026-12-01T06:00:00.000Z');
    expect(campaignInstant('2026-12-01T06:00:00')).toBeNull();
    expect(campaignInstant(null)).toBeNull();
  });
});

describe('campaignParamParts', () => {
  it('splits a param into text and the contact fields it names', () => {
    expect(campaignParamParts('Hi {{ contact.name }}, {{contact.attributes.plan}} {{x}}')).toEqual({
      parts: ['Hi ', { field: 'name' }, ', ', { attribute: 'plan' }, ' {{x}}'],
      unknown: ['{{x}}'],
    });
  });
});
