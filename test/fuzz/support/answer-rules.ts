import { performance } from 'node:perf_hooks';

/**
 * What every fuzzed answer must be: a success or a 4xx problem+json with a documented status,
 * never a 5xx; a refusal within 1 s; any answer under 1 MiB.
 */
const MAX_ANSWER_BYTES = 1024 * 1024;
const MAX_REFUSAL_MS = 1000;

export interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

interface Answer {
  status: number;
  contentType: string;
  bytes: number;
  ms: number;
  text: string;
}

async function send(req: Sent): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body });
  const buf = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    bytes: buf.length,
    ms: performance.now() - started,
    text: buf.toString('utf8'),
  };
}

/** What every answer must be; returns the reason it is not, for fast-check to report with the request. */
function judge(answer: Answer, documented: string[] | null): string | null {
  if (answer.status >= 500) return `a ${answer.status}`;
  if (answer.bytes > MAX_ANSWER_BYTES) return `an answer of ${answer.bytes} bytes`;
  if (answer.status >= 400) {
    if (!answer.contentType.startsWith('application/problem+json'))
      return `a ${answer.status} as ${answer.contentType}`;
    let body: { status?: unknown; type?: unknown; title?: unknown };
    try {
      body = JSON.parse(answer.text) as typeof body;
    } catch {
      return 'a problem body that is not JSON';
    }
    if (body.status !== answer.status || typeof body.type !== 'string' || typeof body.title !== 'string') {
      return `a problem body that is not RFC 9457: ${answer.text.slice(0, 200)}`;
    }
    if (answer.ms > MAX_REFUSAL_MS) return `a refusal after ${Math.round(answer.ms)} ms`;
  }
  if (documented && !documented.includes(String(answer.status))) return `an undocumented ${answer.status}`;
  return null;
}

export async function check(req: Sent, documented: string[] | null): Promise<void> {
  const answer = await send(req);
  const wrong = judge(answer, documented);
  if (wrong) {
    const shown = { ...req, body: req.body && req.body.length > 300 ? `${req.body.slice(0, 300)}…` : req.body };
    throw new Error(`${wrong} for ${JSON.stringify(shown)}: ${answer.text.slice(0, 300)}`);
  }
}
