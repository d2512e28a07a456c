import { contentErrors, outboundOfContent } from './content';

describe('content', () => {
  it("checks each channel's text and caption limits, naming the field", () => {
    expect(contentErrors('whatsapp', { type: 'text', text: 'x'.repeat(4096) })).toEqual([]);
    expect(contentErrors('max', { type: 'text', text: 'x'.repeat(4001) })).toEqual([
      expect.objectContaining({ field: 'content.text' }),
    ]);
    const caption = { type: 'image' as const, url: 'https://a.example/p.jpg', caption: 'c'.repeat(1025) };
    expect(contentErrors('whatsapp', caption)).toEqual([expect.objectContaining({ field: 'content.caption' })]);
    expect(contentErrors('telegram', caption)).toEqual([expect.objectContaining({ field: 'content.caption' })]);
    expect(contentErrors('max', caption)).toEqual([]);
    // Counted in characters, not UTF-16 units: 4,096 emoji fit a WhatsApp text.
    expect(contentErrors('whatsapp', { type: 'text', text: '😀'.repeat(4096) })).toEqual([]);
  });

  it('refuses a field its type does not take, and a caption on WhatsApp audio', () => {
    expect(contentErrors('telegram', { type: 'text', text: 'Hi', url: 'https://a.example' } as never)).toEqual([
      expect.objectContaining({ field: 'content.url' }),
    ]);
    expect(contentErrors('whatsapp', { type: 'audio', url: 'https://a.example/a.ogg', caption: 'x' })).toEqual([
      expect.objectContaining({ field: 'content.caption' }),
    ]);
    expect(contentErrors('telegram', { type: 'audio', url: 'https://a.example/a.ogg', caption: 'x' })).toEqual([]);
  });

  it('maps content to the work item: a SERVICE message of its kind', () => {
    expect(outboundOfContent({ type: 'text', text: 'Hi', preview_url: true })).toEqual({
      kind: 'TEXT',
      category: 'SERVICE',
      content: { text: { body: 'Hi', preview_url: true } },
    });
    expect(
      outboundOfContent({ type: 'document', url: 'https://a.example/r.pdf', caption: 'R', file_name: 'r.pdf' }),
    ).toEqual({
      kind: 'DOCUMENT',
      category: 'SERVICE',
      content: { document: { url: 'https://a.example/r.pdf', caption: 'R', file_name: 'r.pdf' } },
    });
    expect(outboundOfContent({ type: 'audio', url: 'https://a.example/a.ogg' }).kind).toBe('AUDIO');
  });
});
