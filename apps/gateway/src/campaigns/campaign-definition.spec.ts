import { ValidationProblem } from '@app/server';
import { CampaignDefinition } from '@app/contracts';
import { campaignAnswer, mergeDefinition, parseCampaignDefinition } from './campaign-definition';

const valid = {
  name: 'November sale',
  template: 'sale_announcement',
  language: 'en',
  params: ['{{contact.name}}', '20%'],
  audience: { list: 'customers' },
  channels: ['whatsapp', 'telegram'],
};
const noUrlCheck = () => null;

/** The fields a 400 names, each once, sorted; fails the test when the definition passes. */
async function refused(raw: unknown, checkUrl: (url: string) => string | null = noUrlCheck): Promise<string[]> {
  const err = await Promise.resolve()
    .then(() => parseCampaignDefinition(raw, checkUrl))
    .then(
      () => new Error('expected a validation problem'),
      (e: unknown) => e,
    );
  if (!(err instanceof ValidationProblem)) throw err;
  return [...new Set((err.extensions.errors as { field: string }[]).map((e) => e.field))].sort();
}

describe('parseCampaignDefinition', () => {
  it('takes a full definition as given, params defaulting to none', async () => {
    const full = {
      ...valid,
      media_url: 'https://cdn.example.com/a.jpg',
      schedule: { start_at: '2026-12-01T09:00:00+03:00', end_by: '2026-12-02T09:00:00Z' },
      quiet_hours: { start: '21:00', end: '09:00' },
      rate: 0.1,
      budget: 100,
    };
    expect(parseCampaignDefinition(full, noUrlCheck)).toEqual(full);
    const { params: _, ...bare } = valid;
    expect(parseCampaignDefinition(bare, noUrlCheck)).toEqual({ ...bare, params: [] });
    expect(
      parseCampaignDefinition({ ...valid, audience: { filter: {} }, language: null, rate: null }, noUrlCheck),
    ).toMatchObject({ audience: { filter: {} }, language: null });
  });

  it('names every bad field, and refuses unknown ones at any depth', async () => {
    expect(
      await refused({
        name: '',
        template: 'Sale!',
        language: 'English',
        params: ['x'.repeat(1025)],
        audience: { list: 'a', extra: 1 },
        channels: ['sms'],
        schedule: { start_at: '2026-12-01 09:00', when: 'now' },
        quiet_hours: { start: '24:00', end: '9:00' },
        rate: 10_001,
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
        'name',
        'params',
        'quiet_hours.end',
        'quiet_hours.start',
        'rate',
        'schedule.start_at',
        'schedule.when',
        'template',
      ].sort(),
    );
    expect(await refused({ ...valid, rate: 0.05, budget: 1e9 + 1 })).toEqual(['budget', 'rate']);
    expect(await refused({ ...valid, channels: [] })).toEqual(['channels']);
    expect(await refused({ ...valid, channels: ['whatsapp', 'whatsapp'] })).toEqual(['channels']);
    expect(await refused({ ...valid, channels: ['whatsapp', 'telegram', 'max', 'whatsapp'] })).toEqual(['channels']);
    expect(await refused({ ...valid, name: 'x'.repeat(201) })).toEqual(['name']);
    expect(await refused({ ...valid, params: Array.from({ length: 101 }, () => 'a') })).toEqual(['params']);
    expect(await refused([valid])).toEqual(['body']);
  });

  it("names params[i] for a reference to anything but the contact's name, external id, language or attributes", async () => {
    expect(await refused({ ...valid, params: ['{{contact.name}}', 'hi {{contact.phone}}', '{{order.id}}'] })).toEqual([
      'params[1]',
      'params[2]',
    ]);
  });

  it('takes exactly one audience, each within its bounds', async () => {
    expect(await refused({ ...valid, audience: {} })).toEqual(['audience']);
    expect(await refused({ ...valid, audience: { list: 'a', filter: { lists: ['b'] } } })).toEqual(['audience']);
    expect(await refused({ ...valid, audience: { list: 'a/b' } })).toEqual(['audience.list']);
    expect(await refused({ ...valid, audience: { contact_ids: [] } })).toEqual(['audience.contact_ids']);
    expect(
      await refused({
        ...valid,
        audience: { contact_ids: ['0192f0c4-a0f8-7cc3-a1f0-e4d2b3c4d5e6', 'crm-1', 'ext:', 'ext:crm-1'] },
      }),
    ).toEqual(['audience.contact_ids[1]', 'audience.contact_ids[2]']);
    expect(
      await refused({ ...valid, audience: { contact_ids: Array.from({ length: 10_001 }, (_, i) => `ext:${i}`) } }),
    ).toEqual(['audience.contact_ids']);
    expect(
      parseCampaignDefinition(
        { ...valid, audience: { contact_ids: Array.from({ length: 10_000 }, (_, i) => `ext:${i}`) } },
        noUrlCheck,
      ),
    ).toMatchObject({ name: valid.name });
    expect(
      await refused({
        ...valid,
        audience: {
          filter: {
            lists: Array.from({ length: 21 }, (_, i) => `l${i}`),
            attributes: { 'bad key': 1, nested: { a: 1 } },
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

  it('refuses a schedule ending before it starts, an impossible date, and quiet hours starting when they end', async () => {
    expect(
      await refused({ ...valid, schedule: { start_at: '2026-12-02T09:00:00Z', end_by: '2026-12-01T09:00:00Z' } }),
    ).toEqual(['schedule.end_by']);
    expect(await refused({ ...valid, schedule: { start_at: '2026-02-30T09:00:00Z' } })).toEqual(['schedule.start_at']);
    expect(await refused({ ...valid, quiet_hours: { start: '21:00', end: '21:00' } })).toEqual(['quiet_hours.end']);
  });

  it('refuses a media URL that is not https, or that the egress policy refuses', async () => {
    expect(await refused({ ...valid, media_url: 'http://cdn.example.com/a.jpg' })).toEqual(['media_url']);
    expect(
      await refused({ ...valid, media_url: 'https://10.0.0.1/a.jpg' }, () => 'must not point to a private address'),
    ).toEqual(['media_url']);
  });
});

describe('mergeDefinition', () => {
  it('replaces the fields given, clears optional ones with null, and refuses clearing a required one', () => {
    const stored = { ...valid, rate: 5, budget: 10 };
    expect(mergeDefinition(stored, { name: 'Renamed', rate: null })).toEqual({
      ...valid,
      name: 'Renamed',
      budget: 10,
    });
    expect(() => mergeDefinition(stored, { name: null, audience: null })).toThrow(ValidationProblem);
    expect(mergeDefinition(stored, { colour: null })).toMatchObject({ colour: null });
  });
});

describe('campaignAnswer', () => {
  const campaign = (schedule: CampaignDefinition['schedule']) => ({ ...valid, schedule }) as CampaignDefinition;

  it('answers the schedule in Unix seconds whichever form it was written in, absent and null kept', () => {
    const iso = campaign({ start_at: '2026-12-01T09:00:00+03:00', end_by: '2026-12-02T09:00:00.999999999Z' });
    expect(campaignAnswer(iso).schedule).toEqual({ start_at: 1_796_104_800, end_by: 1_796_202_000 });
    expect(campaignAnswer(campaign({ start_at: 1_796_104_800, end_by: null })).schedule).toEqual({
      start_at: 1_796_104_800,
      end_by: null,
    });
    expect(campaignAnswer(campaign({ end_by: '2026-12-02T09:00Z' })).schedule).toEqual({ end_by: 1_796_202_000 });
    expect(campaignAnswer(campaign(null)).schedule).toBeNull();
    expect(campaignAnswer(iso)).toMatchObject({ name: 'November sale', audience: { list: 'customers' } });
  });
});
