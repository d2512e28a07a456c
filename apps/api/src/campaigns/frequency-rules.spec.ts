import { UnprocessableProblem } from '@app/server';
import { outcomeOf } from './campaign-runner';
import { frequencyBreak, frequencySkipOf } from './frequency-rules';

describe('frequency rules at send time', () => {
  const rules = { frequency_cap: { messages: 2, period_hours: 24 }, recent_template_days: 7 };

  it('breaks the cap first, then the recent template, and nothing when both hold', () => {
    expect(frequencyBreak(rules, { sends: 2, hadTemplate: true })).toBe('frequency_cap');
    expect(frequencyBreak(rules, { sends: 1, hadTemplate: true })).toBe('recent_template');
    expect(frequencyBreak(rules, { sends: 1, hadTemplate: false })).toBeNull();
    expect(
      frequencyBreak({ frequency_cap: null, recent_template_days: null }, { sends: 9, hadTemplate: true }),
    ).toBeNull();
  });

  it("skips the recipient with the rule's reason; another 422 stays a refusal", () => {
    const limited = new UnprocessableProblem('frequency-limited', 'Frequency limited', 'x', {
      reason: 'recent_template',
    });
    expect(frequencySkipOf(limited)).toBe('recent_template');
    expect(outcomeOf(limited)).toEqual({ kind: 'skipped', reason: 'recent_template' });
    const odd = new UnprocessableProblem('frequency-limited', 'Frequency limited', 'x', { reason: 'other' });
    expect(frequencySkipOf(odd)).toBeNull();
    expect(outcomeOf(odd)).toEqual({ kind: 'skipped', reason: 'refused' });
  });
});
