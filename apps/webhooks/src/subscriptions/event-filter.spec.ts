import { normalizeEventFilter } from '@app/contracts';
import { newSigningSecret } from './subscription-secret';

describe('event filter', () => {
  it('accepts "*" or known event types, normalized and deduplicated', () => {
    expect(normalizeEventFilter('*')).toEqual(['*']);
    expect(normalizeEventFilter(['message.read', 'message.sent', 'message.read'])).toEqual([
      'message.sent',
      'message.read',
    ]);
    expect(normalizeEventFilter(['message.read', '*'])).toEqual(['*']);
  });

  it('refuses empty lists, unknown types and other shapes', () => {
    for (const bad of [[], ['message.exploded'], 'message.read', [1], null, undefined, {}]) {
      expect(normalizeEventFilter(bad)).toBeNull();
    }
  });
});

describe('signing secrets', () => {
  it('are whsec_ and base64 of 32 random bytes', () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(a);
  });
});
