import { buttonIdOf, definitionOf, fallbackSummary, messageSummary } from './campaign-form';

const formOf = (fields: Record<string, string>): FormData => {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return form;
};
const base = { name: 'Poll', audience_kind: 'list', audience_value: 'readers', channel_telegram: 'on' };

describe('the campaign builder form', () => {
  it('describes a template campaign with its language and params', () => {
    const def = definitionOf(
      formOf({ ...base, message_kind: 'template', template: 'promo', language: 'en', params: 'A\n\n B \n' }),
    );
    expect(def).toEqual({
      name: 'Poll',
      template: 'promo',
      language: 'en',
      params: ['A', 'B'],
      audience: { list: 'readers' },
      channels: ['telegram'],
    });
  });

  it('describes a buttons message, ids from the labels unless given, and its fallback template', () => {
    const def = definitionOf(
      formOf({
        ...base,
        message_kind: 'buttons',
        content_text: 'Open on Sunday?',
        button_title_1: 'Yes, please!',
        button_title_2: 'No thanks',
        button_id_2: 'no',
        button_title_3: '',
        fallback_template: 'promo',
        language: 'en',
        params: '{{contact.name}}',
        // A template field left from switching kinds is not sent beside the content.
        template: 'stale',
      }),
    );
    expect(def).toEqual({
      name: 'Poll',
      content: {
        type: 'buttons',
        text: 'Open on Sunday?',
        buttons: [
          { id: 'yes_please', title: 'Yes, please!' },
          { id: 'no', title: 'No thanks' },
        ],
      },
      fallback_template: 'promo',
      language: 'en',
      params: ['{{contact.name}}'],
      audience: { list: 'readers' },
      channels: ['telegram'],
    });
  });

  it('sends no language or params with a content that has no fallback template', () => {
    const def = definitionOf(
      formOf({ ...base, message_kind: 'text', content_text: 'Hi', language: 'en', params: 'x' }),
    );
    expect([def.content, def.fallback_template, def.language, def.params]).toEqual([
      { type: 'text', text: 'Hi' },
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('describes an image of the media library by its id, with its caption when given', () => {
    const id = '019a8d6e-3b7c-7f11-9e2a-5b6c7d8e9f00';
    expect(definitionOf(formOf({ ...base, message_kind: 'image', content_media_id: id })).content).toEqual({
      type: 'image',
      media_id: id,
    });
    expect(
      definitionOf(formOf({ ...base, message_kind: 'image', content_media_id: id, content_caption: 'New in' })).content,
    ).toEqual({ type: 'image', media_id: id, caption: 'New in' });
  });

  it("makes a button's reply id within Telegram's 64 bytes, or names it by its place", () => {
    expect(buttonIdOf('Да, конечно', 1)).toBe('да_конечно');
    expect(new TextEncoder().encode(buttonIdOf('Ж'.repeat(40), 1)).length).toBeLessThanOrEqual(64);
    expect(buttonIdOf('!!!', 2)).toBe('button_2');
  });

  it("sums up a campaign's message and its fallback in a line", () => {
    expect(messageSummary({ template: 'promo', language: 'en' })).toBe('promo (en)');
    expect(
      messageSummary({
        content: {
          type: 'buttons',
          text: 'Open?',
          buttons: [
            { id: 'y', title: 'Yes' },
            { id: 'n', title: 'No' },
          ],
        },
      }),
    ).toBe('buttons: Open? [Yes | No]');
    expect(fallbackSummary({ fallback_template: 'promo', language: 'en' })).toBe('promo (en)');
    expect(fallbackSummary({})).toBe('—');
  });
});
