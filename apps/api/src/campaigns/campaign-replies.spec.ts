import { replyOf } from './campaign-replies';

describe('replyOf', () => {
  it('names the button, row or flow of a press', () => {
    expect(
      replyOf(
        {
          type: 'reply',
          text: 'Yes please',
          reply: { kind: 'button', id: 'btn-1', title: 'Yes please', payload: null, context_message_id: 'wamid.1' },
        },
        'Yes please',
      ),
    ).toEqual({ kind: 'button', id: 'btn-1', title: 'Yes please', text: 'Yes please' });
  });

  it("keeps a plain answer's kind and text, with no id or title", () => {
    expect(replyOf({ type: 'image', text: 'look' }, 'look')).toEqual({
      kind: 'image',
      id: null,
      title: null,
      text: 'look',
    });
    expect(replyOf(undefined, 'hi')).toEqual({ kind: 'text', id: null, title: null, text: 'hi' });
  });
});
