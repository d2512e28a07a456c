/** A multipart/form-data body as the sandbox reads it: its text fields, and the names of its file fields. */
export interface MultipartForm {
  fields: Record<string, string>;
  files: Set<string>;
}

/** Reads a multipart/form-data body the sandbox kept whole (its uploads are small); null when it is not one. */
export function parseMultipartForm(body: Buffer, contentType: string | undefined): MultipartForm | null {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType ?? '');
  if (!boundary) return null;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const form: MultipartForm = { fields: {}, files: new Set() };
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next === -1) break;
    const part = body.subarray(start + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const headers = part.subarray(0, split).toString('latin1');
    const name = /(?:^|;|\s)name="([^"]*)"/i.exec(headers)?.[1];
    if (name !== undefined) {
      if (/filename=/i.test(headers)) form.files.add(name);
      else form.fields[name] = part.subarray(split + 4).toString('utf8');
    }
    at = next;
  }
  return form;
}
