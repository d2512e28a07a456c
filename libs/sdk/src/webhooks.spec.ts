import { Webhook } from 'standardwebhooks';
import { createGatewayClient } from './client';
import { paginate } from './pages';
import { verifyWebhook, WebhookVerificationError } from './webhooks';

const SECRET = `whsec_${Buffer.from('a-32-byte-signing-secret-for-test').toString('base64')}`;
const OTHER = `whsec_${Buffer.from('another-secret-of-thirty-two-byte').toString('base64')}`;

/** A request as the webhooks service signs it. */
function signed(secret: string, event: object, at = new Date()) {
  const body = JSON.stringify(event);
  const id = (event as { id: string }).id;
  return {
    body,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, body),
    },
  };
}

const event = {
  id: 'evt_1',
  type: 'message.sent',
  created_at: 1,
  channel: 'telegram',
  app_id: null,
  data: { message_id: 'm-1' },
};

describe('webhook verification', () => {
  it('returns the event of a request signed with the secret, from any header shape', () => {
    const req = signed(SECRET, event);
    expect(verifyWebhook(SECRET, req.body, req.headers)).toEqual(event);
    expect(verifyWebhook(SECRET, Buffer.from(req.body), new Headers(req.headers))).toEqual(event);
    const upper = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toUpperCase(), [v]]));
    expect(verifyWebhook(SECRET, req.body, upper)).toEqual(event);
  });

  it('accepts either secret of a rotation', () => {
    const req = signed(OTHER, event);
    expect(verifyWebhook([SECRET, OTHER], req.body, req.headers)).toEqual(event);
  });

  it('refuses another secret, an altered body and an old timestamp', () => {
    const req = signed(SECRET, event);
    expect(() => verifyWebhook(OTHER, req.body, req.headers)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(SECRET, req.body.replace('m-1', 'm-2'), req.headers)).toThrow(WebhookVerificationError);
    const old = signed(SECRET, event, new Date(Date.now() - 10 * 60_000));
    expect(() => verifyWebhook(SECRET, old.body, old.headers)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(SECRET, req.body, {})).toThrow(WebhookVerificationError);
  });
});

describe('cursor pages', () => {
  it('iterates every item, asking for a page only when the one before is consumed', async () => {
    const pages: Record<string, { data: number[]; next_cursor: string | null }> = {
      first: { data: [1, 2], next_cursor: 'c2' },
      c2: { data: [3], next_cursor: 'c3' },
      c3: { data: [4], next_cursor: null },
    };
    const asked: (string | undefined)[] = [];
    const items = paginate(async (cursor) => {
      asked.push(cursor);
      return pages[cursor ?? 'first'];
    });
    expect((await items.next()).value).toBe(1);
    expect(asked).toEqual([undefined]);
    const rest: number[] = [];
    for await (const item of items) rest.push(item);
    expect(rest).toEqual([2, 3, 4]);
    expect(asked).toEqual([undefined, 'c2', 'c3']);
  });

  it("the gateway's message list passes each next_cursor and the filters", async () => {
    const urls: string[] = [];
    const fetch = async (request: Request) => {
      urls.push(request.url);
      const last = new URL(request.url).searchParams.has('cursor');
      const body = {
        data: [{ id: last ? 'b' : 'a' }],
        next_cursor: last ? null : '019a8d6e-0000-7000-8000-000000000000',
      };
      return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
    };
    const gateway = createGatewayClient({ baseUrl: 'http://gw', token: 't', fetch });
    const ids: string[] = [];
    for await (const m of gateway.messages({ channel: 'telegram', limit: '2' })) ids.push(m.id);
    expect(ids).toEqual(['a', 'b']);
    expect(urls).toEqual([
      'http://gw/v1/messages?channel=telegram&limit=2',
      'http://gw/v1/messages?channel=telegram&limit=2&cursor=019a8d6e-0000-7000-8000-000000000000',
    ]);
  });
});
