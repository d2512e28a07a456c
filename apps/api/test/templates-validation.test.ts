import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { client, errorFields, expectProblem } from './support/http';
import { minimalTemplate, textTemplate } from './support/templates';

/** POST templates: every rule of docs/api.md, each limit accepted at its edge and refused one past it. */
describe('template creation rules', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let sys: TestUser;
  let call: ReturnType<typeof client>;
  let path: string;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'api-tpl-rules',
      services: ['api', 'gateway', 'sandbox'],
      env: { SANDBOX_MODERATION_DELAY_MS: '300', TEMPLATE_SYNC_INTERVAL_MS: '0' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system');
    const app = await factory.activeApp(sys.userId);
    path = `/v1/wa/apps/${app.id}/templates`;
    call = client(`${platform.urls.api}/api`);
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  const create = (body: Record<string, unknown>) => call('POST', path, { auth: sys.auth, body });
  const expectAccepted = async (body: Record<string, unknown>) => {
    const res = await create(body);
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 201 });
    return res.body;
  };
  const expectRefused = async (body: Record<string, unknown>, field: string) => {
    const res = await create(body);
    expectProblem(res, 400, '/problems/validation-error');
    expect(errorFields(res)).toContain(field);
    return res.body;
  };

  it('201: the Template object, PENDING and UNKNOWN, with wa_id from the channel and placeholders from the examples', async () => {
    const body = textTemplate({ name: 'order_shipped' });
    const before = Math.floor(Date.now() / 1000);
    const t = await expectAccepted(body);
    expect(t).toEqual({
      id: expect.any(Number),
      wa_id: expect.stringMatching(/^\d+$/),
      name: 'order_shipped',
      category: 'UTILITY',
      type: 'TEXT',
      language: 'en_US',
      status: 'PENDING',
      quality: 'UNKNOWN',
      media_url: null,
      components: {
        header: { text: 'Order {{1}}', sample_text: 'Order A1234', placeholders: ['A1234'] },
        body: {
          text: 'Hi {{1}}, your order {{2}} has shipped.',
          sample_text: 'Hi Anna, your order A1234 has shipped.',
          placeholders: ['Anna', 'A1234'],
        },
        footer: { text: 'Acme Shop', sample_text: 'Acme Shop', placeholders: [] },
        buttons: [
          { type: 'QUICK_REPLY', text: 'Thanks' },
          { type: 'URL', text: 'Track', url: 'https://shop.example.com/track/{{1}}', placeholders: ['A1234'] },
        ],
      },
      failure_details: null,
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
    expect(t.created_at).toBeGreaterThanOrEqual(before - 5);
    // The channel holds it under the id it returned.
    const sandbox = await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/templates`);
    expect(JSON.stringify(await sandbox.json())).toContain(t.wa_id);
  });

  it('a minimal template has no header, a null footer and no buttons; type defaults to TEXT', async () => {
    const t = await expectAccepted(minimalTemplate());
    expect(t.type).toBe('TEXT');
    expect(t.components).toEqual({
      body: { text: 'Our summer sale starts today.', sample_text: 'Our summer sale starts today.', placeholders: [] },
      footer: null,
      buttons: [],
    });
  });

  it('name: lowercase letters, digits and underscores, up to 512 characters', async () => {
    await expectAccepted(minimalTemplate({ name: 'a'.repeat(512) }));
    await expectRefused(minimalTemplate({ name: 'a'.repeat(513) }), 'name');
    for (const name of ['Order', 'order-shipped', 'order shipped', ''])
      await expectRefused(minimalTemplate({ name }), 'name');
  });

  it('name and language together are unique per app: a duplicate is a 400 on name', async () => {
    await expectAccepted(minimalTemplate({ name: 'twice', language: 'en' }));
    await expectRefused(minimalTemplate({ name: 'twice', language: 'en' }), 'name');
    await expectAccepted(minimalTemplate({ name: 'twice', language: 'de' }));
  });

  it('language from the allowed list; category MARKETING, UTILITY or SERVICE; type TEXT, IMAGE, VIDEO, DOCUMENT', async () => {
    for (const language of ['en', 'pt_BR', 'ru', 'fil']) await expectAccepted(minimalTemplate({ language }));
    for (const language of ['xx', 'EN', 'en-US', 'english'])
      await expectRefused(minimalTemplate({ language }), 'language');
    for (const category of ['MARKETING', 'UTILITY', 'SERVICE']) await expectAccepted(minimalTemplate({ category }));
    for (const category of ['MARKETING_LITE', 'AUTHENTICATION', 'marketing']) {
      await expectRefused(minimalTemplate({ category }), 'category');
    }
    await expectRefused(minimalTemplate({ type: 'AUDIO' }), 'type');
    for (const field of ['name', 'language', 'category', 'body', 'body_example']) {
      const body = minimalTemplate();
      delete body[field];
      await expectRefused(body, field);
    }
  });

  it('body up to 550 characters, header and footer up to 60', async () => {
    await expectAccepted(minimalTemplate({ body: 'b'.repeat(550), body_example: 'b'.repeat(550) }));
    await expectRefused(minimalTemplate({ body: 'b'.repeat(551), body_example: 'b'.repeat(551) }), 'body');
    await expectAccepted(minimalTemplate({ header: 'h'.repeat(60), header_example: 'h'.repeat(60) }));
    await expectRefused(minimalTemplate({ header: 'h'.repeat(61), header_example: 'h'.repeat(61) }), 'header');
    await expectAccepted(minimalTemplate({ footer: 'f'.repeat(60) }));
    await expectRefused(minimalTemplate({ footer: 'f'.repeat(61) }), 'footer');
  });

  it('examples are required when header or body is set, and must fit the text', async () => {
    await expectRefused(minimalTemplate({ header: 'Order {{1}}' }), 'header_example');
    await expectRefused(minimalTemplate({ header_example: 'Order A1' }), 'header_example');
    await expectRefused(minimalTemplate({ body_example: '' }), 'body_example');
    await expectRefused(minimalTemplate({ body: 'Hi {{1}}!', body_example: 'Hello Anna!' }), 'body_example');
    await expectRefused(minimalTemplate({ body: 'Hi {{1}}!', body_example: 'Hi !' }), 'body_example');
    const t = await expectAccepted(
      minimalTemplate({ body: 'Hi {{1}}, code {{2}}', body_example: 'Hi Anna Lee, code 42' }),
    );
    expect(t.components.body.placeholders).toEqual(['Anna Lee', '42']);
  });

  it('variables are {{n}} numbered from 1 without gaps, at most 10 per component', async () => {
    const withBody = (body: string, body_example: string) => minimalTemplate({ body, body_example });
    await expectRefused(withBody('Hi {{2}}', 'Hi Anna'), 'body');
    await expectRefused(withBody('Hi {{1}} and {{3}}', 'Hi A and B'), 'body');
    await expectRefused(withBody('Hi {{0}}', 'Hi A'), 'body');
    await expectRefused(withBody('Hi {{ 1 }}', 'Hi A'), 'body');
    await expectRefused(withBody('Hi {{name}}', 'Hi A'), 'body');
    await expectRefused(withBody('Hi {{1}}{{2}}', 'Hi AB'), 'body');
    await expectRefused(minimalTemplate({ header: 'Order {{2}}', header_example: 'Order 7' }), 'header');
    await expectRefused(minimalTemplate({ footer: 'Ref {{1}}' }), 'footer');
    const vars = (n: number) => Array.from({ length: n }, (_, i) => `{{${i + 1}}}`).join(' ');
    const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i + 1}`).join(' ');
    const ten = await expectAccepted(withBody(`Values: ${vars(10)}.`, `Values: ${values(10)}.`));
    expect(ten.components.body.placeholders).toHaveLength(10);
    await expectRefused(withBody(`Values: ${vars(11)}.`, `Values: ${values(11)}.`), 'body');
    const repeated = await expectAccepted(withBody('Hi {{1}}, yes {{1}}!', 'Hi Anna, yes Anna!'));
    expect(repeated.components.body.placeholders).toEqual(['Anna']);
  });

  it('buttons: 1 to 10, QUICK_REPLY {type, text} or URL {type, text, url, example}, text up to 25', async () => {
    const quick = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ type: 'QUICK_REPLY', text: `Option ${i + 1}` }));
    await expectAccepted(minimalTemplate({ buttons: quick(1) }));
    const ten = await expectAccepted(minimalTemplate({ buttons: quick(10) }));
    expect(ten.components.buttons).toHaveLength(10);
    await expectRefused(minimalTemplate({ buttons: quick(11) }), 'buttons');
    await expectRefused(minimalTemplate({ buttons: [] }), 'buttons');
    await expectAccepted(minimalTemplate({ buttons: [{ type: 'QUICK_REPLY', text: 't'.repeat(25) }] }));
    await expectRefused(
      minimalTemplate({ buttons: [{ type: 'QUICK_REPLY', text: 't'.repeat(26) }] }),
      'buttons.0.text',
    );
    await expectRefused(minimalTemplate({ buttons: [{ type: 'QUICK_REPLY', text: '' }] }), 'buttons.0.text');
    await expectRefused(minimalTemplate({ buttons: [{ type: 'CALL', text: 'Call us' }] }), 'buttons.0.type');
    await expectRefused(
      minimalTemplate({ buttons: [{ type: 'QUICK_REPLY', text: 'Yes', url: 'https://a.example.com' }] }),
      'buttons.0.url',
    );
    await expectRefused(minimalTemplate({ buttons: ['Yes'] }), 'buttons.0');
  });

  it('URL buttons: https, at most one {{1}} at the end, and an example when there is one', async () => {
    const url = (b: Record<string, unknown>) => minimalTemplate({ buttons: [{ type: 'URL', text: 'Open', ...b }] });
    const fixed = await expectAccepted(url({ url: 'https://shop.example.com/sale' }));
    expect(fixed.components.buttons).toEqual([
      { type: 'URL', text: 'Open', url: 'https://shop.example.com/sale', placeholders: [] },
    ]);
    const byValue = await expectAccepted(url({ url: 'https://shop.example.com/o/{{1}}', example: 'A1' }));
    expect(byValue.components.buttons[0].placeholders).toEqual(['A1']);
    await expectRefused(url({ url: 'http://shop.example.com/sale' }), 'buttons.0.url');
    await expectRefused(url({ url: 'shop.example.com' }), 'buttons.0.url');
    await expectRefused(url({}), 'buttons.0.url');
    await expectRefused(
      url({ url: 'https://shop.example.com/{{1}}/x', example: 'https://shop.example.com/a/x' }),
      'buttons.0.url',
    );
    await expectRefused(url({ url: 'https://shop.example.com/{{2}}', example: 'x' }), 'buttons.0.url');
    await expectRefused(url({ url: 'https://shop.example.com/{{1}}{{1}}', example: 'x' }), 'buttons.0.url');
    await expectRefused(url({ url: 'https://shop.example.com/o/{{1}}' }), 'buttons.0.example');
    await expectRefused(url({ url: 'https://shop.example.com/o/{{1}}', example: 'has space' }), 'buttons.0.example');
  });

  it('media templates: an HTTPS example_media_url of an allowed type, and no text header', async () => {
    const media = (type: string, example_media_url?: string, extra: Record<string, unknown> = {}) =>
      minimalTemplate({ type, ...(example_media_url ? { example_media_url } : {}), ...extra });
    const image = await expectAccepted(media('IMAGE', 'https://cdn.example.com/banner.png'));
    expect(image.media_url).toBe('https://cdn.example.com/banner.png');
    expect(image.components).not.toHaveProperty('header');
    await expectAccepted(media('IMAGE', 'https://cdn.example.com/photo.JPEG?v=2'));
    await expectAccepted(media('VIDEO', 'https://cdn.example.com/clip.mp4'));
    await expectAccepted(media('VIDEO', 'https://cdn.example.com/clip.3gp'));
    await expectAccepted(media('DOCUMENT', 'https://cdn.example.com/invoice.pdf'));
    await expectRefused(media('IMAGE'), 'example_media_url');
    await expectRefused(media('IMAGE', 'http://cdn.example.com/banner.png'), 'example_media_url');
    await expectRefused(media('IMAGE', 'https://cdn.example.com/banner.gif'), 'example_media_url');
    await expectRefused(media('VIDEO', 'https://cdn.example.com/clip.mov'), 'example_media_url');
    await expectRefused(media('DOCUMENT', 'https://cdn.example.com/invoice.png'), 'example_media_url');
    await expectRefused(
      media('IMAGE', 'https://cdn.example.com/banner.png', { header: 'Sale', header_example: 'Sale' }),
      'header',
    );
    await expectRefused(
      minimalTemplate({ example_media_url: 'https://cdn.example.com/banner.png' }),
      'example_media_url',
    );
  });

  it('wrong types and unknown fields are 400s', async () => {
    await expectRefused(minimalTemplate({ body: 42 }), 'body');
    await expectRefused(minimalTemplate({ buttons: 'Yes' }), 'buttons');
    await expectRefused(minimalTemplate({ components: {} }), 'components');
  });

  it('403 app-not-active for an app without a connected number', async () => {
    const inactive = await factory.app(sys.userId);
    const res = await call('POST', `/v1/wa/apps/${inactive.id}/templates`, { auth: sys.auth, body: minimalTemplate() });
    expectProblem(res, 403, '/problems/app-not-active');
  });
});
