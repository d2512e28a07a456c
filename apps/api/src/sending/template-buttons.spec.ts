import { resolveTemplate, SendableTemplate, templateSendOf } from './template-message';

const NO_LITE = { requested: false, supported: false };

const template = (buttons: SendableTemplate['buttons']): SendableTemplate => ({
  id: 1,
  name: 'offer',
  language: 'en',
  category: 'MARKETING',
  type: 'TEXT',
  status: 'APPROVED',
  header: null,
  body: { text: 'Take {{1}} off' },
  footer: null,
  buttons,
});

describe('COPY_CODE and FLOW buttons at send', () => {
  const copyCode = template([
    { type: 'URL', text: 'Shop', url: 'https://shop.example/{{1}}' },
    { type: 'COPY_CODE', text: 'Copy offer code' },
  ]);

  it("puts the coupon in the COPY_CODE button's parameter, after the URL button's values", () => {
    const send = templateSendOf(copyCode, ['25%', 'autumn'], undefined, 'AUTUMN25');
    expect(Array.isArray(send)).toBe(false);
    const resolved = resolveTemplate(copyCode, send as never, NO_LITE);
    expect(resolved).toMatchObject({
      content: {
        buttons: [
          { index: 0, type: 'URL', values: ['autumn'] },
          { index: 1, type: 'COPY_CODE', values: ['AUTUMN25'] },
        ],
      },
    });
  });

  it('refuses a missing coupon, a coupon without a COPY_CODE button, and one longer than 15', () => {
    expect(templateSendOf(copyCode, ['25%', 'autumn'], undefined)).toEqual([
      expect.objectContaining({ field: 'coupon_code', message: expect.stringContaining('required') }),
    ]);
    const plain = template([]);
    expect(templateSendOf(plain, ['25%'], undefined, 'X1')).toEqual([
      expect.objectContaining({ field: 'coupon_code', message: expect.stringContaining('not allowed') }),
    ]);
    const long = resolveTemplate(
      copyCode,
      {
        name: 'offer',
        components: {
          body: { values: ['25%'] },
          buttons: [
            { type: 'URL', values: ['autumn'] },
            { type: 'COPY_CODE', values: ['X'.repeat(16)] },
          ],
        },
      } as never,
      NO_LITE,
    );
    expect(long).toEqual([expect.objectContaining({ field: 'template.components.buttons.1.values' })]);
  });

  it('gives a FLOW button the flow token when there is one, and nothing otherwise', () => {
    const flow = template([
      { type: 'QUICK_REPLY', text: 'Stop' },
      { type: 'FLOW', text: 'Book now' },
    ]);
    const send = templateSendOf(flow, ['25%'], undefined) as never;
    expect(resolveTemplate(flow, send, NO_LITE, 'ft_token')).toMatchObject({
      content: { buttons: [{ index: 1, type: 'FLOW', values: ['ft_token'] }] },
    });
    expect(resolveTemplate(flow, send, NO_LITE)).toMatchObject({ content: { buttons: [] } });
  });
});
