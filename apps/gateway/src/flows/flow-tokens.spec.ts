import { flowTokenOfAnswer, makeFlowToken } from './flow-tokens';

describe('flow tokens', () => {
  it('are the same for a repeat of one Idempotency-Key and random without one', () => {
    expect(makeFlowToken('acc\nkey-1')).toBe(makeFlowToken('acc\nkey-1'));
    expect(makeFlowToken('acc\nkey-1')).not.toBe(makeFlowToken('acc\nkey-2'));
    expect(makeFlowToken(null)).not.toBe(makeFlowToken(null));
    expect(makeFlowToken(null)).toMatch(/^ft_[A-Za-z0-9_-]{22}$/);
  });

  it("reads the platform's token from a submitted Flow only", () => {
    const token = makeFlowToken(null);
    const answer = (payload: unknown, kind = 'flow') =>
      ({
        type: 'reply',
        text: null,
        reply: { kind, id: null, title: null, payload, context_message_id: null },
      }) as never;
    expect(flowTokenOfAnswer(answer({ flow_token: token, party: '2' }))).toBe(token);
    expect(flowTokenOfAnswer(answer({ flow_token: 'sandbox' }))).toBeNull();
    expect(flowTokenOfAnswer(answer('not json'))).toBeNull();
    expect(flowTokenOfAnswer(answer({ flow_token: token }, 'button'))).toBeNull();
    expect(flowTokenOfAnswer({ type: 'text', text: 'hi' })).toBeNull();
  });
});
