import { OutboundMessage } from '@app/contracts';
import { WhatsAppApiError, WhatsAppConnector } from './whatsapp.connector';

interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

function fakeFetch(answer: (call: Call) => Response | Promise<Response>) {
  const calls: Call[] = [];
  const fn = (async (input: string | URL | Request, init?: RequestInit) => {
    const call: Call = {
      url: String(input),
      method: init?.method ?? 'GET',
      headers: (init?.headers ?? {}) as Record<string, string>,
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    calls.push(call);
    const signal = init?.signal;
    const res = answer(call);
    if (!signal) return res;
    return Promise.race([
      res,
      new Promise<Response>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    ]);
  }) as typeof fetch;
  return { fn, calls };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const text: OutboundMessage = {
  id: 'm1',
  channel: 'whatsapp',
  priority: 'service',
  category: null,
  user_id: 'u',
  app_id: 1,
  sender: { connection_id: '1100001', waba_id: '2200001' },
  recipient: '79990001122',
  kind: 'TEXT',
  content: { text: { body: 'Hi' } },
  queued_at: 0,
};

function connector(fn: typeof fetch, timeoutMs = 1000) {
  return new WhatsAppConnector({ graphUrl: 'http://graph.test/', accessToken: 'tok', timeoutMs, http: fn });
}

describe('WhatsAppConnector.send', () => {
  it('posts the body to the phone number and returns the wamid', async () => {
    const f = fakeFetch(() =>
      json(200, {
        messaging_product: 'whatsapp',
        contacts: [{ input: '79990001122', wa_id: '79990001122' }],
        messages: [{ id: 'wamid.X1' }],
      }),
    );
    expect(await connector(f.fn).send(text)).toEqual({ ok: true, provider_message_id: 'wamid.X1' });
    expect(f.calls).toHaveLength(1);
    expect(f.calls[0]).toMatchObject({
      url: 'http://graph.test/v21.0/1100001/messages',
      method: 'POST',
      headers: { Authorization: 'Bearer tok', 'Content-Type': 'application/json' },
      body: {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: '79990001122',
        type: 'text',
        text: { body: 'Hi' },
      },
    });
  });

  it('reports a rate limit as retryable with the Retry-After wait', async () => {
    const f = fakeFetch(() =>
      json(
        429,
        { error: { message: '(#130429) Rate limit hit', type: 'OAuthException', code: 130429, fbtrace_id: 'A' } },
        { 'Retry-After': '2' },
      ),
    );
    expect(await connector(f.fn).send(text)).toEqual({
      ok: false,
      retryable: true,
      scope: 'sender',
      code: '130429',
      title: '(#130429) Rate limit hit',
      retryAfterMs: 2000,
    });
  });

  it('reports an undeliverable recipient as final, with the details Graph gave', async () => {
    const f = fakeFetch(() =>
      json(400, {
        error: {
          message: '(#131026) Message Undeliverable.',
          type: 'OAuthException',
          code: 131026,
          error_data: { messaging_product: 'whatsapp', details: 'Recipient cannot receive messages' },
          fbtrace_id: 'B',
        },
      }),
    );
    expect(await connector(f.fn).send(text)).toEqual({
      ok: false,
      retryable: false,
      scope: 'message',
      code: '131026',
      title: 'Recipient cannot receive messages',
    });
  });

  it('reports a 5xx without a Graph body as retryable', async () => {
    const f = fakeFetch(() => new Response('upstream down', { status: 502 }));
    expect(await connector(f.fn).send(text)).toMatchObject({ ok: false, retryable: true, code: 'http_502' });
  });

  it('gives up after the timeout and reports it retryable', async () => {
    const f = fakeFetch(() => new Promise<Response>(() => undefined));
    const started = Date.now();
    expect(await connector(f.fn, 100).send(text)).toMatchObject({ ok: false, retryable: true, code: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reports a refused connection as retryable', async () => {
    const c = new WhatsAppConnector({ graphUrl: 'http://127.0.0.1:1', accessToken: 't', timeoutMs: 2000 });
    expect(await c.send(text)).toMatchObject({ ok: false, retryable: true, code: 'network_error' });
  });

  it('does not retry an accepted send without a message id', async () => {
    const f = fakeFetch(() => json(200, { messaging_product: 'whatsapp' }));
    expect(await connector(f.fn).send(text)).toMatchObject({ ok: false, retryable: false, code: 'invalid_response' });
  });

  it('refuses a message without a sending number without calling the channel', async () => {
    const f = fakeFetch(() => json(200, {}));
    const result = await connector(f.fn).send({ ...text, sender: { connection_id: '' } });
    expect(result).toMatchObject({ ok: false, retryable: false, code: 'invalid_message' });
    expect(f.calls).toHaveLength(0);
  });
});

describe('WhatsAppConnector templates', () => {
  const connection = { waba_id: '2200001', phone_number_id: '1100001' };

  it('submits, deletes and lists across pages', async () => {
    const f = fakeFetch((call) => {
      if (call.method === 'POST') return json(200, { id: '777', status: 'PENDING', category: 'UTILITY' });
      if (call.method === 'DELETE') return json(200, { success: true });
      const after = new URL(call.url).searchParams.get('after');
      return after
        ? json(200, {
            data: [
              {
                id: '2',
                name: 'b',
                language: 'en',
                status: 'REJECTED',
                category: 'MARKETING',
                rejected_reason: 'SCAM',
              },
            ],
          })
        : json(200, {
            data: [
              {
                id: '1',
                name: 'a',
                language: 'en',
                status: 'APPROVED',
                category: 'UTILITY',
                quality_score: { score: 'GREEN' },
              },
            ],
            paging: { cursors: { before: 'B', after: 'C1' }, next: 'http://graph.test/next' },
          });
    });
    const c = connector(f.fn);
    const reply = await c.submitTemplate(connection, {
      name: 'a',
      language: 'en',
      category: 'UTILITY',
      type: 'TEXT',
      body: { text: 'Hi {{1}}', example: 'Hi Anna' },
    });
    expect(reply).toEqual({ wa_id: '777', status: 'PENDING' });
    expect(f.calls[0].url).toBe('http://graph.test/v21.0/2200001/message_templates');
    await c.deleteTemplate(connection, 'a', '777');
    expect(f.calls[1].url).toBe('http://graph.test/v21.0/2200001/message_templates?hsm_id=777&name=a');
    const list = await c.listTemplates(connection);
    expect(list.map((t) => [t.wa_id, t.status])).toEqual([
      ['1', 'APPROVED'],
      ['2', 'REJECTED'],
    ]);
    expect(new URL(f.calls[3].url).searchParams.get('after')).toBe('C1');
  });

  it('raises rejected for a refusal and unavailable for an outage', async () => {
    const refused = fakeFetch(() =>
      json(400, {
        error: {
          message: 'Invalid parameter',
          type: 'OAuthException',
          code: 100,
          error_subcode: 2388043,
          fbtrace_id: 'C',
        },
      }),
    );
    await expect(connector(refused.fn).listTemplates(connection)).rejects.toMatchObject({
      kind: 'rejected',
      code: '100',
    });
    const down = fakeFetch(() => new Response('', { status: 503 }));
    const err = await connector(down.fn)
      .listTemplates(connection)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WhatsAppApiError);
    expect(err).toMatchObject({ kind: 'unavailable' });
  });
});
