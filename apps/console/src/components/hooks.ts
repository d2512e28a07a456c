import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Async<T> {
  data?: T;
  error?: unknown;
  loading: boolean;
  reload: () => void;
}

/** Loads `load()` when `deps` change; `reload` loads again. A stale answer never replaces a newer one. */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): Async<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const seq = useRef(0);
  useEffect(() => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === seq.current && setState({ data, loading: false }),
      (error: unknown) => mine === seq.current && setState({ error, loading: false }),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

const MIN_DELAY_MS = 1000;
const MAX_DELAY_MS = 30_000;

/**
 * Calls `poll` repeatedly while `active` and the page is visible: every second while answers
 * change, backing off (doubling, up to 30 s) while they fail or stay the same. `poll` resolves
 * true when it saw a change. Hidden pages stop polling and resume at once when shown again.
 */
export function usePoll(poll: () => Promise<boolean>, active: boolean, deps: unknown[] = []): void {
  const latest = useRef(poll);
  latest.current = poll;
  useEffect(() => {
    if (!active) return;
    let delay = MIN_DELAY_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const run = async () => {
      timer = undefined;
      if (stopped || document.visibilityState !== 'visible') return;
      let changed = false;
      try {
        changed = await latest.current();
      } catch {
        changed = false;
      }
      delay = changed ? MIN_DELAY_MS : Math.min(delay * 2, MAX_DELAY_MS);
      if (!stopped) timer = setTimeout(run, delay);
    };
    const onVisibility = () => {
      if (document.visibilityState === 'visible' && timer === undefined) {
        delay = MIN_DELAY_MS;
        void run();
      } else if (document.visibilityState !== 'visible' && timer !== undefined) {
        clearTimeout(timer);
        timer = undefined;
      }
    };
    timer = setTimeout(run, delay);
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [active, ...deps]);
}
