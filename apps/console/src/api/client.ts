import createClient, { Middleware } from 'openapi-fetch';
// Types only (erased by the build): the SDK's generated gateway types, not its Node runtime.
// eslint-disable-next-line no-restricted-imports, workspace/boundaries
import type { components, paths } from '../../../../libs/sdk/src/generated/gateway';
import { Problem, ProblemError } from './problem';
import { csrfHeader, sessionLost } from './session';

export type { paths };
export type Schemas = components['schemas'];

const session: Middleware = {
  onRequest({ request }) {
    for (const [k, v] of Object.entries(csrfHeader(request.method))) request.headers.set(k, v);
    return request;
  },
  async onResponse({ response }) {
    if (response.status === 401) sessionLost();
    return response;
  },
};

/**
 * The gateway's /v1 API, typed by the SDK's types generated from the gateway's OpenAPI document
 * (`pnpm sdk:generate`): a route or field the gateway changes fails the console's typecheck.
 */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
api.use(session);

/** The data of an openapi-fetch answer, or a ProblemError with its problem body. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let answer: { data?: T; error?: unknown; response: Response };
  try {
    answer = await call;
  } catch {
    throw new ProblemError({ status: 0, title: 'network' });
  }
  const { response, error } = answer;
  if (!response.ok) {
    const body = error && typeof error === 'object' ? (error as Partial<Problem>) : {};
    throw new ProblemError({ title: response.statusText, ...body, status: response.status });
  }
  return answer.data as T;
}

/** A JSON answer of a route that can also answer CSV (asked for JSON, it never does). */
export function asJson<T>(answer: T | string): T {
  if (typeof answer === 'string') throw new ProblemError({ status: 406, title: 'Not JSON' });
  return answer;
}
