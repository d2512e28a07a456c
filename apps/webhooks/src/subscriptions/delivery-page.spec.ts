import type { DeliveryWithAttempts } from '@app/contracts';
import { cutDeliveryPage } from './delivery-page';

const delivery = (n: number, excerpt = ''): DeliveryWithAttempts => ({
  id: `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`,
  event_id: `evt_${n}`,
  event_type: 'message.delivered',
  status: 'FAILED',
  attempts: 1,
  next_attempt_at: null,
  last_attempt_at: 1_700_000_000,
  last_response_status: 500,
  last_error: null,
  created_at: 1_700_000_000,
  attempt_log: [
    {
      id: `00000000-0000-7000-9000-${String(n).padStart(12, '0')}`,
      delivery_id: `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`,
      event_id: `evt_${n}`,
      event_type: 'message.delivered',
      attempt: 1,
      status: 'FAILED',
      response_status: 500,
      latency_ms: 12,
      response_excerpt: excerpt,
      error: null,
      next_retry_at: null,
      created_at: 1_700_000_000,
    },
  ],
});

describe('cutDeliveryPage', () => {
  it('gives the limit and the last id as the cursor when more rows were read', () => {
    const rows = [1, 2, 3, 4].map((n) => delivery(n));
    const page = cutDeliveryPage(rows, 3, 1_000_000);
    expect(page.data.map((d) => d.event_id)).toEqual(['evt_1', 'evt_2', 'evt_3']);
    expect(page.next_cursor).toBe(rows[2].id);
  });

  it('has no cursor on the last page', () => {
    const page = cutDeliveryPage([delivery(1), delivery(2)], 3, 1_000_000);
    expect(page.data).toHaveLength(2);
    expect(page.next_cursor).toBeNull();
  });

  it('stops before the byte budget and pages on from the last delivery it kept', () => {
    const rows = [1, 2, 3, 4].map((n) => delivery(n, 'x'.repeat(1000)));
    const one = Buffer.byteLength(JSON.stringify(rows[0]));
    const page = cutDeliveryPage(rows, 4, one * 2 + 10);
    expect(page.data).toHaveLength(2);
    expect(page.next_cursor).toBe(rows[1].id);
  });

  it('keeps one delivery even when it alone is over the budget, so paging always moves on', () => {
    const rows = [delivery(1, 'x'.repeat(5000)), delivery(2)];
    const page = cutDeliveryPage(rows, 2, 100);
    expect(page.data).toHaveLength(1);
    expect(page.next_cursor).toBe(rows[0].id);
  });
});
