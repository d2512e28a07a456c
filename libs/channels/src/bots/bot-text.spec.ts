import { templateButtons, templateHtml } from './bot-text';

describe('bot template text', () => {
  it('escapes the template and every value so nothing injects markup', () => {
    const html = templateHtml({
      header: 'Order <42>',
      body: 'Hi Ann & <b>Bob</b>, your total is 5 < 6',
      footer: 'Reply STOP',
      buttons: [],
    });
    expect(html).toBe(
      '<b>Order &lt;42&gt;</b>\n\nHi Ann &amp; &lt;b&gt;Bob&lt;/b&gt;, your total is 5 &lt; 6\n\n<i>Reply STOP</i>',
    );
  });

  it("draws WhatsApp's inline formatting as HTML, and leaves lone markers alone", () => {
    expect(
      templateHtml({
        header: null,
        body: 'Your code is *4821*, _valid_ for ~10~ 5 min: ```A-1```',
        footer: null,
        buttons: [],
      }),
    ).toBe('Your code is <b>4821</b>, <i>valid</i> for <s>10</s> 5 min: <code>A-1</code>');
    expect(templateHtml({ header: null, body: '2 * 3 = 6 and snake_case_name', footer: null, buttons: [] })).toBe(
      '2 * 3 = 6 and snake_case_name',
    );
  });

  it('keeps URL buttons as links and quick replies as presses with a payload of at most 64 bytes', () => {
    const buttons = templateButtons({
      header: null,
      body: 'x',
      footer: null,
      buttons: [
        { type: 'URL', text: 'Track', url: 'https://shop.example/t/42' },
        { type: 'QUICK_REPLY', text: 'Stop promotions' },
        { type: 'QUICK_REPLY', text: 'я'.repeat(40) },
      ],
    });
    expect(buttons[0]).toEqual({ kind: 'url', text: 'Track', url: 'https://shop.example/t/42' });
    expect(buttons[1]).toEqual({ kind: 'callback', text: 'Stop promotions', payload: 'Stop promotions' });
    expect(buttons[2].kind === 'callback' && Buffer.byteLength(buttons[2].payload)).toBe(64);
  });
});
