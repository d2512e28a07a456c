import { WhatsAppApiError } from './graph-client';
import { WhatsAppSignup } from './whatsapp-signup';

/** A Graph that answers by `METHOD path`; records what was asked, with which bearer. */
function graph(routes: Record<string, unknown>) {
  const asked: { route: string; auth: string | undefined; url: URL; body: unknown }[] = [];
  const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    const route = `${init?.method ?? 'GET'} ${url.pathname.replace(/^\/v\d+\.\d+/, '')}`;
    const auth = (init?.headers as Record<string, string> | undefined)?.Authorization;
    asked.push({ route, auth, url, body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined });
    const answer = routes[route];
    if (answer === undefined) {
      return new Response(JSON.stringify({ error: { message: 'no such object', code: 100, type: 'x' } }), {
        status: 400,
      });
    }
    return new Response(JSON.stringify(answer), { status: 200 });
  }) as typeof fetch;
  return { fetchFn, asked };
}

const WABA = '102290129340398';
const NUMBER = '106540352242922';

function genuine(grantedWaba = WABA): Record<string, unknown> {
  return {
    'GET /oauth/access_token': { access_token: 'business-token' },
    'GET /debug_token': {
      data: {
        app_id: 'app-1',
        is_valid: true,
        granular_scopes: [
          { scope: 'whatsapp_business_management', target_ids: [grantedWaba] },
          { scope: 'whatsapp_business_messaging', target_ids: [grantedWaba] },
        ],
      },
    },
    [`GET /${WABA}/phone_numbers`]: { data: [{ id: NUMBER }] },
    [`GET /${NUMBER}`]: { id: NUMBER, display_phone_number: '+1 555-000-1234', verified_name: 'Tea Shop' },
    [`POST /${WABA}/subscribed_apps`]: { success: true },
    [`POST /${NUMBER}/register`]: { success: true },
  };
}

const signupWith = (fetchFn: typeof fetch) =>
  new WhatsAppSignup({
    graphUrl: 'https://graph.test',
    appId: 'app-1',
    appSecret: 's3cret',
    twoStepPin: '482913',
    http: fetchFn,
  });

describe('WhatsAppSignup', () => {
  it('proves the claim, reads the number, subscribes and registers, with the right credentials', async () => {
    const { fetchFn, asked } = graph(genuine());
    const done = await signupWith(fetchFn).complete({ code: 'c0de', waba_id: WABA, phone_number_id: NUMBER });
    expect(done).toEqual({ waba_id: WABA, phone_number_id: NUMBER, phone: '15550001234', verified_name: 'Tea Shop' });
    expect(asked.map((a) => a.route)).toEqual([
      'GET /oauth/access_token',
      'GET /debug_token',
      `GET /${WABA}/phone_numbers`,
      `GET /${NUMBER}`,
      `POST /${WABA}/subscribed_apps`,
      `POST /${NUMBER}/register`,
    ]);
    const [exchange, debug, ...rest] = asked;
    expect(Object.fromEntries(exchange.url.searchParams)).toEqual({
      client_id: 'app-1',
      client_secret: 's3cret',
      code: 'c0de',
    });
    expect(exchange.auth).toBeUndefined();
    expect(debug.auth).toBe('Bearer app-1|s3cret');
    expect(debug.url.searchParams.get('input_token')).toBe('business-token');
    for (const a of rest) expect(a.auth).toBe('Bearer business-token');
    expect(asked[5].body).toEqual({ messaging_product: 'whatsapp', pin: '482913' });
  });

  it.each([
    ['a code granting another WABA', { ...genuine('999') }, 'signup_waba_not_granted'],
    [
      'a token of another app',
      { ...genuine(), 'GET /debug_token': { data: { app_id: 'other', is_valid: true } } },
      'signup_code_invalid',
    ],
    [
      'a number of another WABA',
      { ...genuine(), [`GET /${WABA}/phone_numbers`]: { data: [{ id: '1' }] } },
      'signup_number_not_granted',
    ],
    ['a code Graph refuses', { ...genuine(), 'GET /oauth/access_token': undefined }, 'signup_code_invalid'],
  ])('%s is refused before anything is subscribed or registered', async (_, routes, code) => {
    const { fetchFn, asked } = graph(routes);
    const err = await signupWith(fetchFn)
      .complete({ code: 'c0de', waba_id: WABA, phone_number_id: NUMBER })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WhatsAppApiError);
    expect(err).toMatchObject({ kind: 'rejected', code });
    expect(asked.some((a) => a.route.startsWith('POST'))).toBe(false);
  });
});
