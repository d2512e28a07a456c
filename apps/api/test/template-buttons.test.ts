import { waitFor } from '@app/testing';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { client, errorFields, expectProblem, Json } from './support/http';
import { textTemplate } from './support/templates';

/**
 * WhatsApp template creation with PHONE_NUMBER, COPY_CODE and FLOW buttons beside QUICK_REPLY and
 * URL: submitted to the sandbox's Graph emulator, moderated and shown back; their rules as 400s.
 */
describe('template buttons', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let sys: TestUser;
  let call: ReturnType<typeof client>;
  let base: string;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'api-tpl-buttons',
      services: ['api', 'gateway', 'sandbox'],
      env: { SANDBOX_MODERATION_DELAY_MS: '100', TEMPLATE_SYNC_INTERVAL_MS: '0' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system');
    base = `/v1/wa/apps/${(await factory.activeApp(sys.userId)).id}/templates`;
    call = client(`${platform.urls.api}/api`);
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  it('creates a template with call, copy-code and Flow buttons: approved and shown with their fields', async () => {
    const buttons = [
      { type: 'QUICK_REPLY', text: 'Stop' },
      { type: 'PHONE_NUMBER', text: 'Call us', phone_number: '+15550100' },
      { type: 'COPY_CODE', text: 'Copy code', example: 'SALE20' },
      { type: 'FLOW', text: 'Book now', flow_id: '1234567890', navigate_screen: 'WELCOME' },
    ];
    const created = await call('POST', base, {
      auth: sys.auth,
      body: { ...textTemplate({ name: 'offer_buttons' }), category: 'MARKETING', buttons },
    });
    expect(created.status).toBe(201);
    const approved = await waitFor(
      async () => {
        const list = (await call('GET', base, { auth: sys.auth })).body as Json[];
        const t = list.find((x) => x.id === created.body.id);
        return t?.status === 'APPROVED' ? t : false;
      },
      10_000,
      'the template approved',
      100,
    );
    expect(approved.components.buttons).toEqual([
      { type: 'QUICK_REPLY', text: 'Stop' },
      { type: 'PHONE_NUMBER', text: 'Call us', phone_number: '+15550100' },
      { type: 'COPY_CODE', text: 'Copy code', example: 'SALE20' },
      { type: 'FLOW', text: 'Book now', flow_id: '1234567890', flow_action: 'navigate', navigate_screen: 'WELCOME' },
    ]);
  });

  it('400 naming the field for a button missing its own fields or carrying another type’s', async () => {
    const cases: [Json[], string][] = [
      [[{ type: 'PHONE_NUMBER', text: 'Call' }], 'buttons.0.phone_number'],
      [[{ type: 'PHONE_NUMBER', text: 'Call', phone_number: 'call me' }], 'buttons.0.phone_number'],
      [[{ type: 'COPY_CODE', text: 'Copy' }], 'buttons.0.example'],
      [[{ type: 'COPY_CODE', text: 'Copy', example: 'has spaces' }], 'buttons.0.example'],
      [[{ type: 'FLOW', text: 'Open' }], 'buttons.0.flow_id'],
      [[{ type: 'FLOW', text: 'Open', flow_id: '1', flow_action: 'jump' }], 'buttons.0.flow_action'],
      [[{ type: 'QUICK_REPLY', text: 'Hi', phone_number: '+15550100' }], 'buttons.0.phone_number'],
      [[{ type: 'URL', text: 'Go', url: 'https://a.example', flow_id: '1' }], 'buttons.0.flow_id'],
      [
        [
          { type: 'COPY_CODE', text: 'Copy', example: 'A1' },
          { type: 'COPY_CODE', text: 'Copy', example: 'B2' },
        ],
        'buttons.1.type',
      ],
      [[{ type: 'CATALOG', text: 'Shop' }], 'buttons.0.type'],
    ];
    for (const [buttons, field] of cases) {
      const res = await call('POST', base, {
        auth: sys.auth,
        body: { ...textTemplate({ name: 'bad_buttons' }), buttons },
      });
      expectProblem(res, 400, '/problems/validation-error');
      expect([JSON.stringify(buttons), errorFields(res)]).toEqual([JSON.stringify(buttons), [field]]);
    }
    const list = (await call('GET', base, { auth: sys.auth })).body as Json[];
    expect(list.map((t) => t.name)).not.toContain('bad_buttons');
  });
});
