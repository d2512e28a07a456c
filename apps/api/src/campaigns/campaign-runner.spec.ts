import { ProblemError, TooManyRequestsProblem, UnprocessableProblem, ValidationProblem } from '@app/server';
import { outcomeOf } from './campaign-runner';

describe('campaign send outcomes', () => {
  it('consent refusals skip the recipient', () => {
    expect(outcomeOf(new UnprocessableProblem('recipient-opted-out', 'Recipient opted out'))).toEqual({
      kind: 'skipped',
      reason: 'opted_out',
    });
    expect(outcomeOf(new UnprocessableProblem('consent-required', 'Consent required'))).toEqual({
      kind: 'skipped',
      reason: 'consent_required',
    });
  });

  it('a full tier waits for its Retry-After', () => {
    const full = new TooManyRequestsProblem('messaging-tier-exceeded', 'Messaging tier exceeded', 'full', 3600);
    expect(outcomeOf(full)).toEqual({ kind: 'tier', retryAfterSeconds: 3600 });
  });

  it('the balance, the marketing pause and the template pause the campaign', () => {
    expect(outcomeOf(new UnprocessableProblem('insufficient-balance', 'Insufficient balance', 'short'))).toEqual({
      kind: 'pause',
      reason: 'insufficient_balance',
      detail: 'short',
    });
    expect(outcomeOf(new ProblemError(403, 'marketing-paused', 'Marketing paused', 'RED'))).toMatchObject({
      kind: 'pause',
      reason: 'marketing_paused',
    });
    expect(outcomeOf(new ValidationProblem([{ field: 'template', message: 'not approved' }]))).toMatchObject({
      kind: 'pause',
      reason: 'template_unavailable',
    });
  });

  it('503 and unknown errors are tried again', () => {
    expect(outcomeOf(new ProblemError(503, 'service-unavailable', 'Service unavailable'))).toEqual({ kind: 'retry' });
    expect(outcomeOf(new Error('connection reset'))).toEqual({ kind: 'retry' });
  });

  it("a recipient's own params that do not fit skip it as refused; a refusal no retry changes too", () => {
    expect(outcomeOf(new ValidationProblem([{ field: 'params', message: 'too long' }]))).toEqual({
      kind: 'skipped',
      reason: 'refused',
    });
    expect(outcomeOf(new UnprocessableProblem('not-connected', 'Channel not connected'))).toEqual({
      kind: 'skipped',
      reason: 'refused',
    });
  });
});
