import { isSingleEmoji, isTemplateValue } from './dto/send-message.dto';
import {
  chooseTemplate,
  countVariables,
  renderTemplate,
  renderText,
  resolveTemplate,
  SendableTemplate,
  templateSendOf,
} from './template-message';

const template = (over: Partial<SendableTemplate> = {}): SendableTemplate => ({
  id: 1,
  name: 'order',
  language: 'en',
  category: 'MARKETING',
  type: 'TEXT',
  status: 'APPROVED',
  header: { text: 'Order {{1}}' },
  body: { text: 'Hi {{1}}, {{2}} and again {{1}}' },
  footer: null,
  buttons: [
    { type: 'QUICK_REPLY', text: 'Stop' },
    { type: 'URL', text: 'Open', url: 'https://x.example/{{1}}' },
  ],
  ...over,
});

describe('template sends', () => {
  it('counts distinct variables', () => {
    expect(countVariables('Hi {{1}}, {{2}} and again {{1}}')).toBe(2);
    expect(countVariables(null)).toBe(0);
    expect(renderText('Hi {{1}}, {{2}}', ['Ann', '7'])).toBe('Hi Ann, 7');
  });

  it('builds the content and matches buttons with variables in order', () => {
    const resolved = resolveTemplate(
      template(),
      {
        name: 'order',
        components: {
          header: { values: [5] },
          body: { values: ['Ann', 'B'] },
          buttons: [{ type: 'URL', values: ['p1'] }],
        },
      },
      { requested: true, supported: true },
    );
    expect(resolved).toEqual({
      category: 'MARKETING_LITE',
      content: {
        name: 'order',
        language: 'en',
        media: null,
        header_values: ['5'],
        body_values: ['Ann', 'B'],
        buttons: [{ index: 1, type: 'URL', values: ['p1'] }],
        rendered_text: 'Order 5\n\nHi Ann, B and again Ann',
        is_mm_lite: true,
      },
    });
  });

  it('refuses wrong counts, a wrong button type and a missing media URL, each on its field', () => {
    const errors = resolveTemplate(
      template({ type: 'VIDEO' }),
      { name: 'order', components: { body: { values: ['one'] }, buttons: [{ type: 'QUICK_REPLY', values: [] }] } },
      { requested: false, supported: false },
    );
    expect(Array.isArray(errors) && errors.map((e) => e.field)).toEqual([
      'template.components.header.values',
      'template.components.body.values',
      'template.components.buttons.0.type',
      'template.components.buttons.0.values',
      'template.url',
    ]);
  });

  it('MARKETING_LITE only for marketing templates of apps that support it', () => {
    const req = {
      name: 'order',
      components: {
        header: { values: ['1'] },
        body: { values: ['a', 'b'] },
        buttons: [{ type: 'URL' as const, values: ['x'] }],
      },
    };
    const r1 = resolveTemplate(template(), req, { requested: true, supported: false });
    const r2 = resolveTemplate(template({ category: 'UTILITY' }), req, { requested: true, supported: true });
    expect(!Array.isArray(r1) && r1.category).toBe('MARKETING');
    expect(!Array.isArray(r2) && r2.category).toBe('UTILITY');
  });

  it('chooses by name and language, approved only', () => {
    const en = template();
    const pt = template({ id: 2, language: 'pt_BR' });
    const paused = template({ id: 3, name: 'paused', status: 'PAUSED' });
    expect(chooseTemplate([en], { name: 'order' })).toBe(en);
    expect(chooseTemplate([en, pt], { name: 'order', language: 'pt_BR' })).toBe(pt);
    expect(chooseTemplate([en, pt], { name: 'order' })).toEqual([
      expect.objectContaining({ field: 'template.language' }),
    ]);
    expect(chooseTemplate([paused], { name: 'paused' })).toEqual([expect.objectContaining({ field: 'template.name' })]);
    expect(chooseTemplate([], { name: 'none' })).toEqual([expect.objectContaining({ field: 'template.name' })]);
  });

  it('values and emoji', () => {
    expect(isTemplateValue('x'.repeat(30))).toBe(true);
    expect(isTemplateValue('x'.repeat(31))).toBe(false);
    expect(isTemplateValue(12.5)).toBe(true);
    expect(isTemplateValue(Number.NaN)).toBe(false);
    expect(isTemplateValue(true)).toBe(false);
    expect(isSingleEmoji('👍🏽')).toBe(true);
    expect(isSingleEmoji('1️⃣')).toBe(true);
    expect(isSingleEmoji('👍 ')).toBe(false);
  });
  it('maps a flat params list to header, body and URL-button values, in that order', () => {
    const t = template();
    const send = templateSendOf(t, ['A-1', 'Ann', 'Bob', 'track-1'], undefined);
    expect(send).toMatchObject({
      name: 'order',
      language: 'en',
      components: {
        header: { values: ['A-1'] },
        body: { values: ['Ann', 'Bob'] },
        buttons: [{ type: 'URL', values: ['track-1'] }],
      },
    });
    expect(templateSendOf(t, ['only'], undefined)).toEqual([
      expect.objectContaining({ field: 'params', message: expect.stringContaining('4 variable(s)') }),
    ]);
  });

  it('renders a template for a bot channel: values put in, URL buttons rendered, quick replies report their text', () => {
    const t = template({ footer: { text: 'Bye' } });
    const send = templateSendOf(t, ['A-1', 'Ann', 'Bob', 'track-1'], undefined);
    const resolved = resolveTemplate(t, send as never, { requested: false, supported: false });
    if (Array.isArray(resolved)) throw new Error('expected a template');
    expect(renderTemplate(t, resolved.content)).toEqual({
      header: 'Order A-1',
      body: 'Hi Ann, Bob and again Ann',
      footer: 'Bye',
      buttons: [
        { type: 'QUICK_REPLY', text: 'Stop', payload: 'Stop' },
        { type: 'URL', text: 'Open', url: 'https://x.example/track-1' },
      ],
    });
  });
});
