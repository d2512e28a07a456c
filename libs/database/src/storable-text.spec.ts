import { storableText } from './storable-text';

describe('storableText', () => {
  it('replaces NUL at any depth, keys included, and keeps everything else', () => {
    const event = {
      type: 'message.received',
      data: { from: '79\u00001', text: ['a\u0000b', 2, null], ['k\u0000']: true },
    };
    expect(storableText(event)).toEqual({
      type: 'message.received',
      data: { from: '79\ufffd1', text: ['a\ufffdb', 2, null], ['k\ufffd']: true },
    });
  });

  it('gives back the same object when there is nothing to replace', () => {
    const event = { type: 'message.sent', data: { message_id: 'x', nested: [{ a: 'b' }] } };
    expect(storableText(event)).toBe(event);
  });
});
