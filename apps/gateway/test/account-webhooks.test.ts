import { waitFor } from '@app/testing';
import { Endpoint } from '../../../test/support/webhook-endpoint';
import { call, ConsolePlatform, consoleUser, ConsoleUser, startConsolePlatform } from './support/console';

interface Attempt {
  attempt: number;
  status: string;
  response_status: number | null;
}
interface Delivery {
  id: string;
  event_type: string;
  status: string;
  attempts: number;
  attempt_log: Attempt[];
}
interface Page {
  data: Delivery[];
  next_cursor: string | null;
}

/**
 * An endpoint's webhook deliveries through the gateway (`GET /v1/webhooks/{id}/deliveries`), read
 * from the webhooks service through the api: newest first, page by page, each with its attempts,
 * optionally of one status.
 */
describe('account webhooks: the deliveries of an endpoint, cursor-paged', () => {
  let p: ConsolePlatform;
  let owner: ConsoleUser;

  beforeAll(async () => {
    p = await startConsolePlatform('gw-account-webhooks', { WEBHOOK_POLL_INTERVAL_MS: '100' }, ['webhooks']);
    owner = await consoleUser(p, 'owner');
  });

  afterAll(async () => {
    await p?.stop();
  });

  const sendTest = async (subscriptionId: string): Promise<void> => {
    const res = await fetch(`${p.platform.urls.api}/api/v1/subscriptions/${subscriptionId}/test`, {
      method: 'POST',
      headers: { authorization: p.user.auth },
    });
    expect(res.status).toBe(202);
  };

  /** Every page of the list with `query`, following next_cursor to the end. */
  const allPages = async (path: string, query: string): Promise<Page[]> => {
    const pages: Page[] = [];
    let cursor: string | null = null;
    do {
      const res = await owner.call(`${path}?${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      const page = res.body as unknown as Page;
      pages.push(page);
      cursor = page.next_cursor;
    } while (cursor && pages.length < 20);
    return pages;
  };

  it('pages more deliveries than a page, newest first, with attempts, by status, and refuses bad cursors', async () => {
    const endpoint = await new Endpoint().open();
    try {
      const created = await owner.call('/v1/webhooks', {
        body: { url: endpoint.url(), events: ['contact.opted_out'] },
      });
      expect(created.status).toBe(201);
      endpoint.secret = created.body.secret;
      const path = `/v1/webhooks/${created.body.id}/deliveries`;

      for (let i = 0; i < 5; i++) await sendTest(created.body.id);
      const delivered = await waitFor(
        async () => {
          const res = await owner.call(`${path}?limit=100`);
          const data = (res.body as unknown as Page).data ?? [];
          return data.length === 5 && data.every((d) => d.status === 'SUCCEEDED' && d.attempt_log.length === 1)
            ? (res.body as unknown as Page)
            : false;
        },
        30_000,
        'five delivered test events',
        100,
      );
      expect(delivered.next_cursor).toBeNull();

      // Pages of two: three pages, the same deliveries in the same order, none twice.
      const pages = await allPages(path, 'limit=2');
      expect(pages.map((pg) => pg.data.length)).toEqual([2, 2, 1]);
      expect(pages[2].next_cursor).toBeNull();
      const paged = pages.flatMap((pg) => pg.data);
      expect(paged.map((d) => d.id)).toEqual(delivered.data.map((d) => d.id));
      expect(paged[0].attempt_log[0]).toMatchObject({ attempt: 1, status: 'SUCCEEDED', response_status: 204 });

      // The endpoint goes away: the next event fails its first attempt and waits for a retry.
      await endpoint.close();
      await sendTest(created.body.id);
      const pending = await waitFor(
        async () => {
          const res = await owner.call(`${path}?status=PENDING`);
          const [first] = (res.body as unknown as Page).data ?? [];
          return first && first.attempt_log.length === 1 ? (res.body as unknown as Page) : false;
        },
        30_000,
        'the failed first attempt of the new event',
        100,
      );
      expect(pending.data).toHaveLength(1);
      expect(pending.next_cursor).toBeNull();
      expect(pending.data[0].attempt_log[0]).toMatchObject({ attempt: 1, status: 'FAILED', response_status: null });

      const newest = await owner.call(`${path}?limit=1`);
      expect((newest.body as unknown as Page).data[0].id).toBe(pending.data[0].id);
      const succeeded = (await allPages(path, 'limit=2&status=SUCCEEDED')).flatMap((pg) => pg.data);
      expect(succeeded.map((d) => d.id)).toEqual(delivered.data.map((d) => d.id));
      expect((await owner.call(`${path}?status=FAILED`)).body).toEqual({ data: [], next_cursor: null });

      // A cursor must be a delivery of this endpoint; limit and status are checked.
      for (const query of ['cursor=nope', `cursor=${created.body.id}`, 'limit=101', 'limit=0', 'status=LOST']) {
        const bad = await owner.call(`${path}?${query}`);
        expect({ query, status: bad.status }).toEqual({ query, status: 400 });
        expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }

      // Another account cannot read them, nor page with this endpoint's cursor.
      const other = await p.factory.user('system');
      const stranger = await p.accounts.createAccount('stranger', other.userId);
      const theirs = await call(p.gateway, `${path}?cursor=${pages[0].next_cursor}`, { token: stranger.token });
      expect(theirs.status).toBe(404);
    } finally {
      await endpoint.close();
    }
  });
});
