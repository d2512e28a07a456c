import { ProblemError } from '@app/server';
import { requireRole, roleNeededFor } from './console-roles';

describe('the role a console request needs', () => {
  it('lets every role read, agents work conversations, managers change the rest, owners manage tokens', () => {
    expect(roleNeededFor('GET', '/v1/contacts')).toBe('viewer');
    expect(roleNeededFor('HEAD', '/v1/messages/:id')).toBe('viewer');
    expect(roleNeededFor('POST', '/v1/conversations/:id/messages')).toBe('agent');
    expect(roleNeededFor('POST', '/v1/conversations/:id/read')).toBe('agent');
    expect(roleNeededFor('PATCH', '/v1/conversations/:id')).toBe('agent');
    expect(roleNeededFor('DELETE', '/v1/conversations/:id')).toBe('manager');
    expect(roleNeededFor('POST', '/v1/campaigns')).toBe('manager');
    expect(roleNeededFor('POST', '/v1/campaigns/:id/launch')).toBe('manager');
    expect(roleNeededFor('GET', '/v1/tokens')).toBe('owner');
    expect(roleNeededFor('DELETE', '/v1/tokens/:id')).toBe('owner');
    expect(roleNeededFor('GET', '/v1/tokensmith')).toBe('viewer');
  });

  it('refuses a role below the one needed with 403 naming it', () => {
    expect(() => requireRole('owner', 'manager')).not.toThrow();
    expect(() => requireRole('agent', 'agent')).not.toThrow();
    let refused: unknown;
    try {
      requireRole('viewer', 'agent');
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).toBody()).toMatchObject({
      type: '/problems/forbidden',
      status: 403,
      required_role: 'agent',
    });
  });
});
