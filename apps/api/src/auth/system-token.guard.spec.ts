import { ExecutionContext } from '@nestjs/common';
import { UnauthorizedProblem } from '@app/server';
import { SystemTokenGuard } from './system-token.guard';

const contextOf = (request: object) =>
  ({ switchToHttp: () => ({ getRequest: () => request, getResponse: () => ({}) }) }) as unknown as ExecutionContext;

describe('SystemTokenGuard', () => {
  it.each([
    ['query', { headers: {}, query: { access_token: 'sk_valid_looking_token_123' } }],
    ['body', { headers: {}, query: {}, body: { access_token: 'sk_valid_looking_token_123' } }],
    ['query beside a header', { headers: { authorization: 'Bearer sk_abc' }, query: { access_token: '' } }],
  ])('refuses access_token in the %s before any strategy runs', async (_, request) => {
    // No strategy is registered here: reaching passport would fail differently.
    const err = await new SystemTokenGuard().canActivate(contextOf(request)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnauthorizedProblem);
    expect((err as UnauthorizedProblem).detail).toMatch(/Authorization header only/);
  });
});
