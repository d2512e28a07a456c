import { RpcProblemError } from '@app/messaging';
import { NotFoundProblem, ServiceUnavailableProblem, ValidationProblem } from './problem';
import { rpcProblemOf, toProblem } from './problem.filter';

describe('problems across request/reply', () => {
  it("answers another service's refusal as the same problem", () => {
    const sent = rpcProblemOf(new ValidationProblem([{ field: 'url', message: 'must be HTTPS' }], 'Bad URL.'));
    const answered = toProblem(new RpcProblemError('webhooks.subscriptions.create', sent!));
    expect(answered.toBody()).toEqual(
      new ValidationProblem([{ field: 'url', message: 'must be HTTPS' }], 'Bad URL.').toBody(),
    );
    expect(answered.headers).toEqual({});
  });

  it('tells the client when to retry a service that did not answer', () => {
    const p = rpcProblemOf(new ServiceUnavailableProblem('Nobody answered.'))!;
    const answered = toProblem(new RpcProblemError('apps.connections.resolve', p));
    expect(answered.status).toBe(503);
    expect(answered.headers).toEqual({ 'Retry-After': '5' });
  });

  it('only turns problems into request/reply data', () => {
    expect(rpcProblemOf(new NotFoundProblem('subscription'))).toEqual({
      status: 404,
      slug: 'not-found',
      title: 'Not found',
      detail: 'The subscription does not exist.',
    });
    expect(rpcProblemOf(new Error('database down'))).toBeUndefined();
  });
});
