import { normalizeEventFilter } from './subscriptions';

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
