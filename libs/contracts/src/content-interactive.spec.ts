import { contentErrors, outboundOfContent, renderedAs } from './content';
import { INTERACTIVE_CONTENT_TYPES, INTERACTIVE_RENDERING } from './content-interactive';

describe('interactive content', () => {
  const buttons = (title: string, id = 'ok') => ({ type: 'buttons' as const, text: 'Pick', buttons: [{ id, title }] });

  it("checks each channel's limits, naming the field", () => {
    expect(contentErrors('whatsapp', buttons('x'.repeat(21)))).toEqual([
      expect.objectContaining({ field: 'content.buttons.0.title' }),
    ]);
    expect(contentErrors('telegram', buttons('x'.repeat(21)))).toEqual([]);
    expect(contentErrors('telegram', buttons('Ok', 'é'.repeat(33)))).toEqual([
      expect.objectContaining({ field: 'content.buttons.0.id', message: expect.stringContaining('64 bytes') }),
    ]);
    expect(contentErrors('whatsapp', { ...buttons('Ok'), text: 'x'.repeat(1025) })).toEqual([
      expect.objectContaining({ field: 'content.text' }),
    ]);
    const rows = Array.from({ length: 11 }, (_, n) => ({ id: `r${n}`, title: `Row ${n}` }));
    const list = { type: 'list' as const, text: 'Pick', button: 'Open', sections: [{ title: 'All', rows }] };
    expect(contentErrors('max', list).map((e) => e.field)).toEqual(['content.sections']);
  });

  it('refuses repeated ids and fields of another kind', () => {
    const twice = {
      ...buttons('A'),
      buttons: [
        { id: 'a', title: 'A' },
        { id: 'a', title: 'B' },
      ],
    };
    expect(contentErrors('telegram', twice).map((e) => e.field)).toEqual(['content.buttons']);
    const misplaced = { type: 'location_request', text: 'Where?', flow_id: '1' } as never;
    expect(contentErrors('whatsapp', misplaced).map((e) => e.field)).toEqual(['content.flow_id']);
  });

  it('declares a rendering for every kind on every channel, with the fallbacks', () => {
    for (const rules of Object.values(INTERACTIVE_RENDERING)) {
      expect(Object.keys(rules).sort()).toEqual([...INTERACTIVE_CONTENT_TYPES].sort());
    }
    const flow = { type: 'flow' as const, text: 'Book', flow_id: '1', cta: 'Book' };
    expect(renderedAs('whatsapp', flow)).toBe('flow');
    expect(renderedAs('telegram', flow)).toBe('text');
    expect(renderedAs('max', { ...flow, fallback_url: 'https://a.example/f' })).toBe('cta_url');
    expect(renderedAs('telegram', { type: 'list', text: 'a', button: 'b', sections: [] })).toBe('buttons');
    expect(renderedAs('telegram', { type: 'image', url: 'https://a.example/a.jpg' })).toBe('image');
  });

  it('is an INTERACTIVE service message on the outbound stream', () => {
    expect(outboundOfContent(buttons('Ok'))).toEqual({
      kind: 'INTERACTIVE',
      category: 'SERVICE',
      content: { interactive: buttons('Ok') },
    });
  });
});
