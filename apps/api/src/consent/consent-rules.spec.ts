import { ConsentChange, keywordOf } from '@app/contracts';
import { consentRefusal, decide, RecordedConsent } from './consent-rules';

const since = new Date('2026-11-20T10:00:00Z');
const out = (purpose: 'marketing' | 'all', source: RecordedConsent['source']): RecordedConsent => ({
  purpose,
  state: 'opted_out',
  source,
  since,
});
const change = (over: Partial<ConsentChange>): ConsentChange => ({
  channel: 'telegram',
  address: '424242',
  purpose: 'marketing',
  state: 'opted_in',
  source: 'api',
  ...over,
});

describe('consent rules', () => {
  it('the same state again changes nothing', () => {
    expect(decide(out('marketing', 'keyword'), change({ state: 'opted_out' }))).toEqual({ change: false });
    expect(decide(null, change({ state: 'unknown' }))).toEqual({ change: false });
  });

  it('an import never lifts an opt-out, and says why', () => {
    const d = decide(out('marketing', 'keyword'), change({ source: 'import', state: 'opted_in' }));
    expect(d.change).toBe(false);
    expect(d.refused).toMatch(/opted out of marketing on 2026-11-20 \(keyword\); an import cannot/);
    expect(decide(out('marketing', 'api'), change({ source: 'import', state: 'unknown' })).change).toBe(false);
    expect(decide(null, change({ source: 'import', state: 'opted_out' }))).toEqual({ change: true });
  });

  it('the consent API lifts what the person or a channel said only with evidence', () => {
    expect(decide(out('marketing', 'keyword'), change({})).refused).toMatch(/evidence/);
    expect(decide(out('marketing', 'keyword'), change({ evidence: 'signed form 17' }))).toEqual({ change: true });
    expect(decide(out('marketing', 'api'), change({}))).toEqual({ change: true });
  });

  it("writing again lifts only a channel signal's opt-out", () => {
    const again = change({ purpose: 'all', state: 'unknown', source: 'channel' });
    expect(decide(out('all', 'channel'), again)).toEqual({ change: true });
    expect(decide(out('all', 'api'), again)).toEqual({ change: false });
  });

  it('marketing is refused by a marketing or an all opt-out; other categories only by all', () => {
    expect(consentRefusal('telegram', 'MARKETING', [out('marketing', 'keyword')], false)?.extensions).toEqual({
      channel: 'telegram',
      purpose: 'marketing',
      since: Date.parse('2026-11-20T10:00:00Z') / 1000,
      source: 'keyword',
    });
    expect(consentRefusal('telegram', 'MARKETING_LITE', [out('marketing', 'keyword')], false)?.slug).toBe(
      'recipient-opted-out',
    );
    expect(consentRefusal('telegram', 'UTILITY', [out('marketing', 'keyword')], false)).toBeNull();
    expect(consentRefusal('max', 'UTILITY', [out('all', 'channel')], false)?.extensions.purpose).toBe('all');
    expect(consentRefusal('max', 'SERVICE', [], false)).toBeNull();
  });

  it('a business that requires opt-in refuses marketing to unknown recipients only', () => {
    expect(consentRefusal('whatsapp', 'MARKETING', [], true)?.slug).toBe('consent-required');
    const optedIn: RecordedConsent = { purpose: 'marketing', state: 'opted_in', source: 'api', since };
    expect(consentRefusal('whatsapp', 'MARKETING', [optedIn], true)).toBeNull();
    expect(consentRefusal('whatsapp', 'UTILITY', [], true)).toBeNull();
  });

  it('keywords ignore case, spaces and punctuation, in Latin and Cyrillic', () => {
    expect(keywordOf(' Stop! ')).toBe('STOP');
    expect(keywordOf('opt-out')).toBe('OPTOUT');
    expect(keywordOf('s t o p.')).toBe('STOP');
    expect(keywordOf('Стоп')).toBe('СТОП');
    expect(keywordOf('отписаться!!')).toBe('ОТПИСАТЬСЯ');
    expect(keywordOf('Please stop sending me these')).toBe('PLEASESTOPSENDINGMETHESE');
    expect(keywordOf('...')).toBeNull();
    expect(keywordOf('x'.repeat(65))).toBeNull();
  });
});
