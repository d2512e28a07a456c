import { ChannelPacing, channelSendRates } from '@app/contracts';
import {
  checkDefinition,
  creditCountedTo,
  inQuietWindow,
  localMinutes,
  quietHoursEnd,
  sendAllowance,
  tierLabel,
} from './campaign-rules';

const valid = {
  name: 'Spring sale',
  template: 'spring_sale',
  params: ['{{contact.name}}'],
  audience: { list: 'customers' },
  channels: ['whatsapp', 'telegram'],
};

describe('campaign definition', () => {
  it('normalizes a valid definition: absent optional fields are null', () => {
    expect(checkDefinition(valid)).toEqual({
      ...valid,
      language: null,
      media_url: null,
      schedule: null,
      quiet_hours: null,
      rate: null,
      budget: null,
    });
  });

  it('names each bad field by the one definition check the gateway runs too', () => {
    const errors = checkDefinition({
      ...valid,
      name: '',
      channels: ['whatsapp', 'whatsapp'],
      audience: { list: 'a', contact_ids: ['c1'] },
      quiet_hours: { start: '21:00', end: '21:00' },
      rate: 0,
      budget: 1e9 + 1,
      media_url: 'http://example.com/a.png',
      schedule: { start_at: '2026-12-01T10:00:00', end_by: null },
    });
    expect(Array.isArray(errors)).toBe(true);
    const fields = (errors as { field: string }[]).map((e) => e.field).sort();
    expect(fields).toEqual(
      [
        'audience',
        'audience.contact_ids[0]',
        'budget',
        'channels',
        'media_url',
        'name',
        'quiet_hours.end',
        'rate',
        'schedule.start_at',
      ].sort(),
    );
  });

  it('refuses an end_by before start_at', () => {
    const errors = checkDefinition({
      ...valid,
      schedule: { start_at: '2026-12-01T10:00:00Z', end_by: '2026-12-01T09:00:00Z' },
    });
    expect(errors).toEqual([{ field: 'schedule.end_by', message: 'end_by must be later than start_at' }]);
  });

  it('keeps an ISO 8601 time as given and Unix seconds as ISO 8601 in UTC', () => {
    expect(
      checkDefinition({
        ...valid,
        name: ' Spring ',
        schedule: { start_at: 1_796_104_800, end_by: '2026-12-02T09:00+03:00' },
      }),
    ).toMatchObject({
      name: 'Spring',
      schedule: { start_at: '2026-12-01T06:00:00.000Z', end_by: '2026-12-02T09:00+03:00' },
    });
    expect(checkDefinition({ ...valid, schedule: { start_at: null } })).toMatchObject({ schedule: null });
  });
});

describe('quiet hours', () => {
  it('reads the local time in the recipient zone', () => {
    const at = new Date('2026-06-01T12:30:00Z');
    expect(localMinutes(at, 'UTC')).toBe(12 * 60 + 30);
    expect(localMinutes(at, 'Europe/Moscow')).toBe(15 * 60 + 30);
    expect(localMinutes(at, 'America/New_York')).toBe(8 * 60 + 30);
  });

  it('a window may wrap midnight', () => {
    const [start, end] = [21 * 60, 9 * 60];
    expect(inQuietWindow(22 * 60, start, end)).toBe(true);
    expect(inQuietWindow(3 * 60, start, end)).toBe(true);
    expect(inQuietWindow(9 * 60, start, end)).toBe(false);
    expect(inQuietWindow(12 * 60, start, end)).toBe(false);
    expect(inQuietWindow(13 * 60, 12 * 60, 14 * 60)).toBe(true);
    expect(inQuietWindow(14 * 60, 12 * 60, 14 * 60)).toBe(false);
  });

  it('ends at the local end time in the recipient zone, across midnight', () => {
    // 23:15 in Moscow (UTC+3): quiet until 09:00 Moscow = 06:00Z the next day.
    const at = new Date('2026-06-01T20:15:00Z');
    expect(quietHoursEnd(at, 'Europe/Moscow', { start: '21:00', end: '09:00' })?.toISOString()).toBe(
      '2026-06-02T06:00:00.000Z',
    );
    // Outside quiet hours: no wait.
    expect(quietHoursEnd(at, 'UTC', { start: '21:00', end: '09:00' })).toBeNull();
  });

  it('follows a change of offset on the way (summer time starts overnight)', () => {
    // New York, 2026-03-08 02:00 local jumps to 03:00. At 01:30 EST (06:30Z), 09:00 EDT is 13:00Z.
    const at = new Date('2026-03-08T06:30:00Z');
    expect(quietHoursEnd(at, 'America/New_York', { start: '21:00', end: '09:00' })?.toISOString()).toBe(
      '2026-03-08T13:00:00.000Z',
    );
  });
});

describe('send allowance', () => {
  const pacing = { ...channelSendRates() } as ChannelPacing;

  it('credits each channel at its pacing for the time since the last tick', () => {
    const a = sendAllowance({ elapsedMs: 200, pacing, channels: ['whatsapp', 'telegram'], rate: null, batchMax: 500 });
    expect(a.perChannel).toEqual({ whatsapp: 16, telegram: 6, max: 0 });
    expect(a.total).toBe(22);
  });

  it('caps the credit at one second, and the batch at batchMax', () => {
    const a = sendAllowance({ elapsedMs: 60_000, pacing, channels: ['whatsapp'], rate: null, batchMax: 500 });
    expect(a.perChannel.whatsapp).toBe(80);
    const b = sendAllowance({ elapsedMs: 60_000, pacing, channels: ['whatsapp'], rate: null, batchMax: 10 });
    expect(b.total).toBe(10);
  });

  it('the campaign rate caps every channel together', () => {
    const a = sendAllowance({ elapsedMs: 1000, pacing, channels: ['whatsapp', 'telegram'], rate: 5, batchMax: 500 });
    expect(a.total).toBe(5);
  });

  it('a rate below one per second still sends: the credit grows to one message', () => {
    expect(sendAllowance({ elapsedMs: 1000, pacing, channels: ['max'], rate: 0.5, batchMax: 500 }).total).toBe(0);
    expect(sendAllowance({ elapsedMs: 2000, pacing, channels: ['max'], rate: 0.5, batchMax: 500 }).total).toBe(1);
    expect(sendAllowance({ elapsedMs: 9000, pacing, channels: ['max'], rate: 0.5, batchMax: 500 }).total).toBe(1);
  });

  it('the first tick has a full credit; no time, nothing', () => {
    expect(sendAllowance({ elapsedMs: null, pacing, channels: ['telegram'], rate: null, batchMax: 500 }).total).toBe(
      30,
    );
    expect(sendAllowance({ elapsedMs: 0, pacing, channels: ['telegram'], rate: null, batchMax: 500 }).total).toBe(0);
  });
});

describe('tier label', () => {
  it('names a cap as people say it', () => {
    expect([50, 250, 1000, 2000, 10_000, 100_000, 1500].map(tierLabel)).toEqual([
      '50',
      '250',
      '1K',
      '2K',
      '10K',
      '100K',
      '1500',
    ]);
  });
});

describe('creditCountedTo', () => {
  const at = (ms: number) => new Date(Date.UTC(2026, 10, 26, 12, 0, 0) + ms);
  it('keeps the fraction of a message a tick could not take for the next tick', () => {
    // 4 per second, 400 ms since the last tick: 1.6 messages of credit, 1 taken, 0.6 kept.
    expect(creditCountedTo({ last: at(0), now: at(400), taken: 1, rate: 4, creditMs: 1000 })).toEqual(at(250));
  });
  it('never keeps more than one credit window, nor counts past now', () => {
    expect(creditCountedTo({ last: at(0), now: at(5000), taken: 0, rate: 4, creditMs: 1000 })).toEqual(at(4000));
    expect(creditCountedTo({ last: at(0), now: at(400), taken: 3, rate: 4, creditMs: 1000 })).toEqual(at(400));
  });
  it('counts to now without a rate, or on the first tick', () => {
    expect(creditCountedTo({ last: at(0), now: at(400), taken: 1, rate: null, creditMs: 1000 })).toEqual(at(400));
    expect(creditCountedTo({ last: null, now: at(400), taken: 1, rate: 4, creditMs: 1000 })).toEqual(at(400));
  });
});
