import {
  fromDailyCap,
  fromMetaNumberStatus,
  fromMetaQuality,
  fromMetaTier,
  parseAppSignal,
  signalOfNumberHealth,
} from './app-signals';

describe('Meta account values as the App object’s', () => {
  it.each([
    ['TIER_50', 'TIER_50', null],
    ['TIER_250', 'TIER_250', null],
    ['TIER_1K', 'TIER_2K', 1000],
    ['TIER_2K', 'TIER_2K', null],
    ['TIER_10K', 'TIER_10K', null],
    ['TIER_100K', 'TIER_100K', null],
    ['TIER_UNLIMITED', 'TIER_UNLIMITED', null],
    ['TIER_NOT_SET', 'TIER_NOT_SET', null],
  ])('tier %s is message_limit %s (exact cap %s)', (meta, label, cap) => {
    expect(fromMetaTier(meta)).toEqual({ message_limit: label, message_cap: cap });
  });

  it('knows no other tier names, nor names of Object.prototype', () => {
    for (const v of ['TIER_5K', 'constructor', '', null, 250]) expect(fromMetaTier(v)).toBeNull();
  });

  it('hands out a fresh object each time: changing one never changes the next', () => {
    const first = fromMetaTier('TIER_10K') as Record<string, unknown>;
    first.refresh = true;
    expect(fromMetaTier('TIER_10K')).toEqual({ message_limit: 'TIER_10K', message_cap: null });
  });

  it.each([
    [50, 'TIER_50', null],
    [250, 'TIER_250', null],
    ['1000', 'TIER_2K', 1000],
    [2000, 'TIER_2K', null],
    [10000, 'TIER_10K', null],
    [100000, 'TIER_100K', null],
    [-1, 'TIER_UNLIMITED', null],
    [1_000_000, 'TIER_UNLIMITED', null],
  ])('a daily cap of %s conversations is %s (exact cap %s)', (cap, label, exact) => {
    expect(fromDailyCap(cap)).toEqual({ message_limit: label, message_cap: exact });
  });

  it('a daily cap that is not a whole number is no tier', () => {
    for (const v of [0, 1.5, 'many', null]) expect(fromDailyCap(v)).toBeNull();
  });

  it('quality GREEN, YELLOW, RED as is; NA and UNKNOWN are UNKNOWN; anything else nothing', () => {
    expect(['GREEN', 'YELLOW', 'RED', 'UNKNOWN', 'NA', 'LOW'].map(fromMetaQuality)).toEqual([
      'GREEN',
      'YELLOW',
      'RED',
      'UNKNOWN',
      'UNKNOWN',
      null,
    ]);
  });

  it('number status: CONNECTED is a working app, RESTRICTED restricts, BANNED blocks, DISCONNECTED stops', () => {
    expect(fromMetaNumberStatus('CONNECTED')).toEqual({
      status: 'ACTIVE',
      is_stopped: false,
      restricted: false,
      restricted_until: null,
    });
    expect(fromMetaNumberStatus('RESTRICTED')).toEqual({ restricted: true, restricted_until: null });
    expect(fromMetaNumberStatus('BANNED')).toEqual({ status: 'BLOCKED' });
    for (const s of ['DELETED', 'DISCONNECTED', 'MIGRATED'])
      expect(fromMetaNumberStatus(s)).toEqual({ is_stopped: true });
    for (const s of ['PENDING', 'FLAGGED', 'RATE_LIMITED', undefined]) expect(fromMetaNumberStatus(s)).toBeNull();
  });
});

describe('signalOfNumberHealth', () => {
  const health = { phone_number_id: '100', waba_id: '200', quality_rating: 'RED', messaging_limit_tier: 'TIER_1K' };

  it('turns a read number into one sync signal with every field it spoke of', () => {
    const s = signalOfNumberHealth({ ...health, status: 'CONNECTED' }, 1700000000);
    expect(s).toMatchObject({
      source: 'sync',
      phone_number_id: '100',
      waba_id: '200',
      phone_quality: 'RED',
      message_limit: 'TIER_2K',
      message_cap: 1000,
      status: 'ACTIVE',
      is_stopped: false,
      restricted: false,
      observed_at: 1700000000,
    });
    expect(s?.refresh).toBeUndefined();
  });

  it('the same state is the same signal id; another state another', () => {
    const a = signalOfNumberHealth({ ...health, status: 'CONNECTED' }, 1);
    const b = signalOfNumberHealth({ ...health, status: 'CONNECTED' }, 2);
    const c = signalOfNumberHealth({ ...health, status: 'BANNED' }, 1);
    expect(a?.id).toBe(b?.id);
    expect(c?.id).not.toBe(a?.id);
  });

  it('a number that could not be read, or says nothing known, is no signal', () => {
    expect(signalOfNumberHealth({ phone_number_id: '1', waba_id: '2', error: 'unavailable' }, 1)).toBeNull();
    expect(
      signalOfNumberHealth(
        { phone_number_id: '1', waba_id: '2', quality_rating: null, messaging_limit_tier: null, status: 'PENDING' },
        1,
      ),
    ).toBeNull();
  });
});

describe('parseAppSignal', () => {
  const base = { id: 'evt_1', waba_id: '200', cause: 'FLAGGED', observed_at: 1 };

  it('keeps the contract’s fields and values and drops the rest', () => {
    expect(
      parseAppSignal({ ...base, phone_quality: 'RED', status: 'DELETED', message_limit: 'TIER_5K', extra: 1 }),
    ).toEqual({
      id: 'evt_1',
      channel: 'whatsapp',
      source: 'callback',
      phone_number_id: null,
      waba_id: '200',
      cause: 'FLAGGED',
      observed_at: 1,
      phone_quality: 'RED',
    });
  });

  it('a restriction keeps its end only while restricted', () => {
    expect(parseAppSignal({ ...base, restricted: true, restricted_until: 99 })).toMatchObject({ restricted_until: 99 });
    expect(parseAppSignal({ ...base, restricted: false, restricted_until: 99 })).toMatchObject({
      restricted: false,
      restricted_until: null,
    });
  });

  it('refuses a signal naming no number or account, without an id, or saying nothing', () => {
    expect(parseAppSignal({ ...base, waba_id: 'x', phone_quality: 'RED' })).toBeNull();
    expect(parseAppSignal({ ...base, id: '', phone_quality: 'RED' })).toBeNull();
    expect(parseAppSignal(base)).toBeNull();
    expect(parseAppSignal('RED')).toBeNull();
  });
});
