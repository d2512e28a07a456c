import type { DeliveryPage, DeliveryWithAttempts } from '@app/contracts';

/**
 * The most a page of deliveries holds in JSON bytes: the answer is one NATS message, and the
 * attempts' response excerpts (up to 1 KiB each) can make a page of a hundred deliveries large.
 */
export const DELIVERY_PAGE_BYTES = 256 * 1024;

/**
 * Cuts a page out of `rows` (read with one more than `limit`, newest first): at most `limit`
 * deliveries and `maxBytes` of JSON, at least one delivery, and the last one's id as the cursor
 * when any are left out.
 */
export function cutDeliveryPage(rows: DeliveryWithAttempts[], limit: number, maxBytes: number): DeliveryPage {
  const data: DeliveryWithAttempts[] = [];
  let bytes = 0;
  for (const row of rows.slice(0, limit)) {
    const size = Buffer.byteLength(JSON.stringify(row));
    if (data.length > 0 && bytes + size > maxBytes) break;
    data.push(row);
    bytes += size;
  }
  return { data, next_cursor: rows.length > data.length ? data[data.length - 1].id : null };
}
