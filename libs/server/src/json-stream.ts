import { Readable } from 'node:stream';

/**
 * A JSON array written as its batches come (a reply body Fastify streams): each batch is read
 * only when the client has taken the previous ones, so a list of any length costs the memory of
 * one batch. An error after the first byte ends the connection (the status is sent already).
 */
export function jsonArrayStream(batches: AsyncIterable<readonly unknown[]>): Readable {
  return Readable.from(
    (async function* () {
      let separator = '';
      yield '[';
      for await (const batch of batches) {
        let chunk = '';
        for (const item of batch) {
          chunk += separator + JSON.stringify(item);
          separator = ',';
        }
        if (chunk) yield chunk;
      }
      yield ']';
    })(),
    { objectMode: false },
  );
}

/** An RFC 8288 `Link` header value naming the next page: `<path?query>; rel="next"`. */
export function nextPageLink(path: string, query: Record<string, string | number>): string {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return `<${path}?${qs}>; rel="next"`;
}
