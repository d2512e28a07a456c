import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

/** A multipart/form-data body of text fields and one file, streamed: the file is read as it is sent. */
export function multipartStream(
  fields: Record<string, string>,
  file: { field: string; name: string; mimeType: string; body: Readable },
): { contentType: string; body: Readable } {
  const boundary = `----media${randomBytes(12).toString('hex')}`;
  const quoted = (v: string) => v.replace(/["\r\n\\]/g, '_');
  async function* parts(): AsyncGenerator<Buffer> {
    for (const [name, value] of Object.entries(fields)) {
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`);
    }
    yield Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.field)}"; filename="${quoted(file.name)}"\r\n` +
        `Content-Type: ${file.mimeType}\r\n\r\n`,
    );
    for await (const chunk of file.body) yield chunk as Buffer;
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Readable.from(parts()) };
}
