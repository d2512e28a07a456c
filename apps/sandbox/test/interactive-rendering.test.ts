import { Platform, startPlatform } from '../../../test/support/platform';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The emulators check interactive renderings as the real APIs do: WhatsApp's `interactive`
 * messages (at most 3 buttons, titles of 20 characters, 10 rows), Telegram's keyboards (callback
 * data of 64 bytes, a reply keyboard asking for the location) and MAX's inline keyboard (button
 * text of 128 characters, request_geo_location buttons); refused calls are recorded as such.
 */
describe('interactive renderings in the sandbox', () => {
  let platform: Platform;
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${platform.urls.sandbox}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  beforeAll(async () => {
    platform = await startPlatform({ suite: 'sandbox-interactive', services: ['sandbox'] });
  });
  afterAll(async () => {
    await platform?.stop();
  });

  const buttons = (n: number, title = 'Ok') => ({
    type: 'button',
    body: { text: 'Pick' },
    action: { buttons: Array.from({ length: n }, (_, i) => ({ type: 'reply', reply: { id: `b${i}`, title } })) },
  });
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${i}`, title: `Row ${i}` }));

  it.each([
    ['3 reply buttons', buttons(3), 200],
    ['4 reply buttons', buttons(4), 400],
    ['a button title of 21 characters', buttons(1, 'x'.repeat(21)), 400],
    [
      'a list of 10 rows',
      { type: 'list', body: { text: 'Pick' }, action: { button: 'Open', sections: [{ title: 'A', rows: rows(10) }] } },
      200,
    ],
    [
      'a list of 11 rows',
      { type: 'list', body: { text: 'Pick' }, action: { button: 'Open', sections: [{ title: 'A', rows: rows(11) }] } },
      400,
    ],
    [
      'a flow without a token',
      {
        type: 'flow',
        body: { text: 'Book' },
        action: { name: 'flow', parameters: { flow_id: '1', flow_cta: 'Book' } },
      },
      400,
    ],
    [
      'a location request',
      { type: 'location_request_message', body: { text: 'Where?' }, action: { name: 'send_location' } },
      200,
    ],
  ])('WhatsApp: %s', async (_what, interactive, status) => {
    const res = await post('/v21.0/1000001/messages?access_token=sandbox-access-token', {
      messaging_product: 'whatsapp',
      to: '79990001122',
      type: 'interactive',
      interactive,
    });
    expect(res.status).toBe(status);
  });

  it('Telegram: a reply keyboard asking for the location is taken; callback data over 64 bytes is refused', async () => {
    const bot = (await post('/_sandbox/telegram/bots', {})).body as { id: number; token: string };
    const send = (reply_markup: unknown) =>
      post(`/telegram/bot${bot.token}/sendMessage`, { chat_id: '4242', text: 'Where?', reply_markup });
    expect((await send({ keyboard: [[{ text: 'Send location', request_location: true }]] })).status).toBe(200);
    expect((await send({ keyboard: [[{ text: 'Send location', request_location: 'yes' }]] })).status).toBe(400);
    const long = await send({ inline_keyboard: [[{ text: 'Ok', callback_data: 'é'.repeat(33) }]] });
    expect(long).toMatchObject({ status: 400, body: { ok: false, description: 'Bad Request: BUTTON_DATA_INVALID' } });
  });

  it('MAX: a request_geo_location button is taken; button text over 128 characters is refused', async () => {
    const bot = (await post('/_sandbox/max/bots', {})).body as { id: number; token: string };
    const send = (buttons: unknown) =>
      post(
        '/max/messages?user_id=515151',
        { text: 'Pick', attachments: [{ type: 'inline_keyboard', payload: { buttons } }] },
        { Authorization: bot.token },
      );
    expect((await send([[{ type: 'request_geo_location', text: 'Send location' }]])).status).toBe(200);
    const long = await send([[{ type: 'callback', text: 'x'.repeat(129), payload: 'a' }]]);
    expect(long.status).toBe(400);
    expect(long.body.message).toMatch(/128/);
  });
});
