import { effectiveFrequency, frequencyRulesErrors } from './campaign-frequency';

describe('frequency rules', () => {
  it('names every bad field under its place, unknown ones included', () => {
    expect(
      frequencyRulesErrors({ frequency_cap: { messages: 2, period_hours: 24 }, recent_template_days: 7 }, ''),
    ).toEqual([]);
    expect(frequencyRulesErrors({ frequency_cap: null, recent_template_days: null }, 'frequency.')).toEqual([]);
    const fields = (raw: unknown, at = '') => frequencyRulesErrors(raw, at).map((e) => e.field);
    expect(
      fields({ frequency_cap: { messages: 0, period_hours: 721, x: 1 }, recent_template_days: 366, y: 1 }),
    ).toEqual(['y', 'frequency_cap.x', 'frequency_cap.messages', 'frequency_cap.period_hours', 'recent_template_days']);
    expect(fields({ frequency_cap: 3 }, 'frequency.')).toEqual(['frequency.frequency_cap']);
    expect(fields({ recent_template_days: 1.5 })).toEqual(['recent_template_days']);
    expect(fields([], 'frequency.')).toEqual(['frequency']);
  });

  it("takes each field of a campaign's override that is present, null turning the rule off", () => {
    const account = { frequency_cap: { messages: 1, period_hours: 24 }, recent_template_days: 7 };
    expect(effectiveFrequency(account, null)).toEqual(account);
    expect(effectiveFrequency(account, { frequency_cap: null })).toEqual({
      frequency_cap: null,
      recent_template_days: 7,
    });
    expect(effectiveFrequency(account, { recent_template_days: 30 })).toEqual({ ...account, recent_template_days: 30 });
  });
});
