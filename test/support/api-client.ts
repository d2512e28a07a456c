type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A call to the public API (`<api>/api/v1<path>`) as one tenant: its status and JSON body. */
export function apiClient(baseUrl: () => string, auth: () => string) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${baseUrl()}/api/v1${path}`, {
      method,
      headers: { authorization: auth(), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
}
