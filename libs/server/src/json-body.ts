import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { BodyBudget } from './body-budget';
import { ProblemError } from './problem';

/**
 * Deepest nesting of a JSON body, the outermost object or array counting as 1. The platform's
 * deepest body (a template send) has 7 levels and Meta's webhooks 8; the validation pipe allows 16
 * (INPUT_LIMITS); this one is checked on the bytes, before anything is parsed.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Heap bytes a parsed JSON value may take per structural token (`[`, `{`, `,`, `:` outside strings),
 * on top of its strings (1 byte per byte, 2 where a string may hold characters past Latin-1).
 * Measured on Node 20 (docs/security.md): 1 MiB of `[{},{},…]` takes 22 MiB of heap (32 per token),
 * nested arrays 50-55, objects of unique keys 40-61; Meta's webhooks 15 to 39. 64 bounds them all.
 */
export const HEAP_BYTES_PER_TOKEN = 64;

/** Below this estimate a body reserves nothing: what a send or a single callback takes (a few KiB). */
const SMALL_BODY_COST = 16 * 1024;

/** Bodies declared larger than this reserve their bytes before they are read. */
const LARGE_READ_BYTES = 64 * 1024;

/**
 * The request bodies one process may hold at once (bytes being read, then what each parse costs:
 * parsedCost), until each request is answered, when its body becomes garbage. Services run with an
 * old generation of 256 MiB (SERVICE_NODE_FLAGS), of which the gateway takes 66 MiB at rest; 8 MiB
 * keeps 16 dense bodies under the 256 KiB limit at once (test/fuzz/hostile-bodies.test.ts) within a
 * heap of 144 MiB (docs/performance-journal.md). A body costing more than the budget (a 240 KB body
 * of 80,000 objects: about 15 MiB) is parsed alone. 16 bodies may wait for room, each at most 2 s.
 */
export const PROCESS_BODY_BUDGET = new BodyBudget(8 * 1024 * 1024, 16, 2_000);

/** Route config (`@RouteConfig(RAW_BODY)`) of the routes that get the body as bytes and parse it themselves. */
export const RAW_BODY = { rawBody: true } as const;

/** 400 for a JSON body nested deeper than MAX_JSON_DEPTH: refused before it is parsed. */
export class BodyTooDeepProblem extends ProblemError {
  readonly statusCode = 400;
  constructor() {
    super(400, 'validation-error', 'Invalid request', `The body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
  }
}

/** A waiting body whose connection closed meanwhile (nobody reads the answer). */
class BodyBudgetGoneError extends ProblemError {
  readonly statusCode = 400;
  constructor() {
    super(400, 'validation-error', 'Invalid request', 'The connection closed before the body was read.');
  }
}

export interface JsonScan {
  /** Whether the nesting passed `maxDepth` (the scan stops there). */
  tooDeep: boolean;
  /** `[`, `{`, `,` and `:` outside strings: each makes at most one value, key or slot of the parse. */
  tokens: number;
  /** Whether a string holds a byte past ASCII or a `\u` escape (it may be stored two bytes a character). */
  wide: boolean;
}

/**
 * One pass over the bytes of a JSON text, without parsing it: how deep it nests and how many values
 * it can make. Malformed text is left for JSON.parse to refuse.
 */
export function scanJson(buf: Buffer, maxDepth = MAX_JSON_DEPTH): JsonScan {
  let depth = 0;
  let tokens = 0;
  let wide = false;
  const n = buf.length;
  for (let i = 0; i < n; i++) {
    const b = buf[i];
    if (b === 0x22) {
      for (i++; i < n; i++) {
        const c = buf[i];
        if (c === 0x22) break;
        if (c === 0x5c) {
          if (buf[++i] === 0x75) wide = true;
        } else if (c >= 0x80) wide = true;
      }
    } else if (b === 0x5b || b === 0x7b) {
      if (++depth > maxDepth) return { tooDeep: true, tokens, wide };
      tokens++;
    } else if (b === 0x5d || b === 0x7d) {
      depth--;
    } else if (b === 0x2c || b === 0x3a) {
      tokens++;
    }
  }
  return { tooDeep: false, tokens, wide };
}

/**
 * An upper bound of the memory a body's parse takes at its peak, each copy of the body counted: the
 * bytes as read (a Buffer), the text JSON.parse reads (decoded from them: 1 byte a character, 2
 * where one is past Latin-1) and the value it makes (HEAP_BYTES_PER_TOKEN per token and its
 * strings): a body of one long string takes three times its bytes while it is parsed.
 */
export function parsedCost(scan: JsonScan, bytes: number): number {
  const perByte = scan.wide ? 2 : 1;
  return bytes + perByte * bytes + scan.tokens * HEAP_BYTES_PER_TOKEN + perByte * bytes;
}

const RAW = Symbol('rawBody');
const RESPONSE = Symbol('bodyResponse');
const BUDGET = Symbol('bodyBudget');
const HELD = Symbol('bodyHeld');
const PARSE = Symbol('jsonParse');

type BodyRequest = FastifyRequest & {
  [RAW]?: Buffer;
  [RESPONSE]?: ServerResponse;
  [BUDGET]?: BodyBudget;
  [HELD]?: number;
  [PARSE]?: (text: string) => unknown;
};

/** The bytes of the body as received, on a route marked with RAW_BODY; undefined elsewhere. */
export function rawBodyOf(req: FastifyRequest): Buffer | undefined {
  return (req as BodyRequest)[RAW];
}

/**
 * The body of a RAW_BODY route parsed as JSON, with the limits every other route's body has
 * (depth, the process's body budget): called by the handler once it has checked the bytes (a
 * signature), so that a body it refuses is never parsed.
 */
export async function jsonBodyOf(req: FastifyRequest): Promise<unknown> {
  const raw = rawBodyOf(req);
  if (!raw) throw new BodyTooDeepProblem();
  return parseJson(req as BodyRequest, raw);
}

/** Holds `cost` of the request's budget until its answer is sent (or its connection closes). */
function hold(req: BodyRequest, cost: number): Promise<void> | undefined {
  const budget = req[BUDGET];
  const res = req[RESPONSE];
  if (!budget || !res) return undefined;
  const held = () => {
    if (res.closed) {
      // The client left while the body waited: nothing will be sent, nothing is kept.
      budget.release(cost);
      throw new BodyBudgetGoneError();
    }
    if (req[HELD] === undefined) {
      req[HELD] = 0;
      res.once('close', () => {
        budget.release(req[HELD] as number);
        req[HELD] = 0;
      });
    }
    req[HELD] += cost;
  };
  const waiting = budget.acquire(cost);
  if (waiting) return waiting.then(held);
  held();
  return undefined;
}

function parseJson(req: BodyRequest, raw: Buffer): unknown {
  const scan = scanJson(raw);
  if (scan.tooDeep) throw new BodyTooDeepProblem();
  const cost = parsedCost(scan, raw.length);
  const parse = req[PARSE] as (text: string) => unknown;
  if (cost <= SMALL_BODY_COST) return parse(raw.toString('utf8'));
  // The bytes reserved while the body was read are part of its cost: given back first, so that a
  // body costing more than the whole budget is parsed alone instead of waiting for itself.
  const reserved = req[HELD] ?? 0;
  if (reserved > 0 && req[BUDGET]) {
    req[HELD] = 0;
    req[BUDGET].release(reserved);
  }
  const waiting = hold(req, cost);
  return waiting ? waiting.then(() => parse(raw.toString('utf8'))) : parse(raw.toString('utf8'));
}

/**
 * Replaces Fastify's JSON parser: the bytes are read as a buffer (outside the heap), scanned for
 * depth and size of what they would make, and parsed only when the process's body budget has room
 * for them; on RAW_BODY routes they are kept as bytes for the handler (rawBodyOf, jsonBodyOf).
 * Bodies declared larger than 64 KiB also reserve their bytes before they are read. Parsing keeps
 * Fastify's own rules (prototype poisoning refused, an empty body is 400).
 */
/** The media type of a Content-Type header, lower case, without its parameters ('' when absent). */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

export function installJsonBodies(fastify: FastifyInstance, budget: BodyBudget = PROCESS_BODY_BUDGET): void {
  const fastifyParse = fastify.getDefaultJsonParser('error', 'error');
  const parse = (text: string): unknown => {
    let out: unknown;
    let failure: Error | null = null;
    fastifyParse(undefined as never, text, (err: Error | null, value?: unknown) => {
      failure = err;
      out = value;
    });
    if (failure) throw failure;
    return out;
  };
  fastify.addHook('preParsing', (request, reply, payload, done) => {
    const req = request as BodyRequest;
    req[RESPONSE] = reply.raw;
    req[BUDGET] = budget;
    req[PARSE] = parse;
    // Only JSON is parsed onto the heap here; a route that takes another type (a contact import's
    // CSV) reads its own stream within its own limit.
    if (mediaTypeOf(request.headers['content-type']) !== 'application/json') return done(null, payload);
    const declared = Number(request.headers['content-length']);
    const limit = request.routeOptions.bodyLimit ?? Infinity;
    const reading = Number.isNaN(declared)
      ? request.headers['transfer-encoding'] !== undefined && limit > LARGE_READ_BYTES
        ? limit
        : 0
      : declared > LARGE_READ_BYTES && declared <= limit
        ? declared
        : 0;
    const waiting = reading ? hold(req, reading) : undefined;
    if (!waiting) return done(null, payload);
    waiting.then(
      () => done(null, payload),
      (err: Error) => done(err),
    );
  });
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const req = request as BodyRequest;
    const raw = body as Buffer;
    if ((request.routeOptions.config as { rawBody?: boolean } | undefined)?.rawBody === true) {
      req[RAW] = raw;
      return done(null, undefined);
    }
    let parsed: unknown;
    try {
      parsed = parseJson(req, raw);
    } catch (err) {
      return done(err as Error, undefined);
    }
    if (parsed instanceof Promise) {
      parsed.then(
        (value) => done(null, value),
        (err: Error) => done(err, undefined),
      );
    } else {
      done(null, parsed);
    }
  });
}
