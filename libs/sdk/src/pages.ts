/** One page of a cursor-paged list: `next_cursor` is null on the last page. */
export interface CursorPage<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * Every item of a cursor-paged list, a page at a time: asks for the next page only when the items
 * of the one before have been consumed, so memory holds one page whatever the list's length.
 * `fetchPage(undefined)` asks for the first page.
 */
export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.data;
    if (!page.next_cursor || page.data.length === 0) return;
    cursor = page.next_cursor;
  }
}
