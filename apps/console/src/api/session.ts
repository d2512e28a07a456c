/**
 * The CSRF token of the signed-in session. It lives in memory only (never in storage): a reload
 * fetches it again with GET /console/api/session.
 */
let csrfToken: string | undefined;
const unauthorizedListeners = new Set<() => void>();

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

export function csrfHeader(method: string): Record<string, string> {
  const safe = method === 'GET' || method === 'HEAD';
  return !safe && csrfToken ? { 'X-CSRF-Token': csrfToken } : {};
}

/** Called when a request answers 401: the session ended (expired, signed out elsewhere). */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export function sessionLost(): void {
  csrfToken = undefined;
  for (const listener of unauthorizedListeners) listener();
}
