import { AppSignal } from '@app/contracts';
import { AppEntity } from '../wa-apps/app.entity';
import { marketingPauseOf } from '../wa-apps/marketing-pause';
import { diffOf } from './app-signals.service';

const app = (over: Partial<AppEntity> = {}): AppEntity =>
  ({
    id: 7,
    status: 'ACTIVE',
    messageLimit: 'TIER_250',
    messageCap: null,
    phoneQuality: 'GREEN',
    isStopped: false,
    restricted: false,
    restrictedUntil: null,
    ...over,
  }) as AppEntity;

const signal = (over: Partial<AppSignal>): AppSignal => ({
  id: 'evt_1',
  channel: 'whatsapp',
  source: 'callback',
  phone_number_id: null,
  waba_id: '200',
  cause: 'test',
  observed_at: 1,
  ...over,
});

describe('diffOf', () => {
  it('changes only what differs', () => {
    expect(diffOf(app(), signal({ message_limit: 'TIER_250', message_cap: null, phone_quality: 'RED' }))).toEqual({
      columns: { phoneQuality: 'RED' },
      data: { phone_quality: 'RED' },
    });
    expect(diffOf(app({ phoneQuality: 'RED' }), signal({ phone_quality: 'RED' }))).toEqual({ columns: {}, data: {} });
  });

  it('a new exact cap under the same label is a change', () => {
    expect(diffOf(app({ messageLimit: 'TIER_2K' }), signal({ message_limit: 'TIER_2K', message_cap: 1000 }))).toEqual({
      columns: { messageLimit: 'TIER_2K', messageCap: 1000 },
      data: { message_limit: 'TIER_2K', message_cap: 1000 },
    });
  });

  it('never activates an app without a number', () => {
    expect(diffOf(app({ status: 'INACTIVE' }), signal({ status: 'ACTIVE' })).columns).toEqual({});
  });

  it('UNFLAGGED lifts a RED rating to UNKNOWN, and leaves any other alone', () => {
    expect(diffOf(app({ phoneQuality: 'RED' }), signal({ refresh: true })).data).toEqual({ phone_quality: 'UNKNOWN' });
    expect(diffOf(app({ phoneQuality: 'YELLOW' }), signal({ refresh: true })).data).toEqual({});
  });

  it('a restriction and its end, as Unix seconds', () => {
    const d = diffOf(app(), signal({ restricted: true, restricted_until: 1800000000 }));
    expect(d.columns).toEqual({ restricted: true, restrictedUntil: new Date(1800000000 * 1000) });
    expect(d.data).toEqual({ restricted: true, restricted_until: 1800000000 });
    const same = app({ restricted: true, restrictedUntil: new Date(1800000000 * 1000) });
    expect(diffOf(same, signal({ restricted: true, restricted_until: 1800000000 })).data).toEqual({});
    expect(diffOf(same, signal({ restricted: false })).data).toEqual({ restricted: false, restricted_until: null });
  });
});

describe('marketingPauseOf', () => {
  const now = new Date('2025-11-21T00:00:00Z');

  it('RED quality pauses marketing and says it lifts automatically', () => {
    expect(marketingPauseOf(app({ phoneQuality: 'RED' }), now)).toMatch(/RED \(low\).*lifts automatically/);
  });

  it('a restriction pauses until its end, or until lifted', () => {
    const until = new Date('2025-11-22T00:00:00Z');
    expect(marketingPauseOf(app({ restricted: true, restrictedUntil: until }), now)).toMatch(
      /until 2025-11-22T00:00:00.000Z.*lifts automatically/,
    );
    expect(marketingPauseOf(app({ restricted: true }), now)).toMatch(/until the channel lifts the restriction/);
  });

  it('no pause for a YELLOW number, nor after a restriction has ended', () => {
    expect(marketingPauseOf(app({ phoneQuality: 'YELLOW' }), now)).toBeNull();
    expect(
      marketingPauseOf(app({ restricted: true, restrictedUntil: new Date('2025-11-20T00:00:00Z') }), now),
    ).toBeNull();
  });
});
