import { botTemplateChannels, botTemplateParams, fillBotTemplate, placeholdersIn } from './bot-template-content';

describe('bot template content', () => {
  it('counts {{1}} to {{n}} across its texts, refusing a gap', () => {
    expect(botTemplateParams({ type: 'text', text: 'Hi {{1}}, {{2}} and {{1}}' })).toBe(2);
    expect(botTemplateParams({ type: 'image', url: 'https://a.example/{{1}}.jpg', caption: 'For {{1}}' })).toBe(1);
    expect(botTemplateParams({ type: 'text', text: 'no placeholders' })).toBe(0);
    expect(botTemplateParams({ type: 'text', text: 'Hi {{2}}' })).toEqual([
      expect.objectContaining({ field: 'content' }),
    ]);
  });

  it('fills texts and captions, never the url or the type', () => {
    expect(fillBotTemplate({ type: 'text', text: 'Hello {{1}} {{ 2 }}' }, ['Ann', 'B'])).toEqual({
      type: 'text',
      text: 'Hello Ann B',
    });
    expect(fillBotTemplate({ type: 'image', url: 'https://a.example/{{1}}', caption: 'For {{1}}' }, ['Ann'])).toEqual({
      type: 'image',
      url: 'https://a.example/{{1}}',
      caption: 'For Ann',
    });
  });

  it('serves the bot channels whose limits the content fits', () => {
    expect(botTemplateChannels({ type: 'text', text: 'x' })).toEqual(['telegram', 'max']);
    expect(botTemplateChannels({ type: 'text', text: 'x'.repeat(4050) })).toEqual(['telegram']);
    expect(botTemplateChannels({ type: 'text', text: 'x'.repeat(5000) })).toEqual([]);
  });

  it("counts a Meta template's params per component", () => {
    expect(placeholdersIn(['Order {{1}}', 'Hi {{1}}, {{2}}', 'https://a.example/{{1}}', null])).toBe(4);
  });
});
