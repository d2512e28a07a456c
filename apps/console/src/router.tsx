import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** The console's path prefix on the gateway's origin. */
export const BASE = '/console';

const listeners = new Set<() => void>();

/** Moves to a console path without reloading (`replace` keeps history from growing). */
export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const listener of listeners) listener();
}

addEventListener('popstate', () => {
  for (const listener of listeners) listener();
});

export interface Location {
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  const path = location.pathname.replace(/\/+$/, '') || BASE;
  return { path: path === BASE ? `${BASE}/` : path, query: new URLSearchParams(location.search) };
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const update = () => setLoc(current());
    listeners.add(update);
    return () => listeners.delete(update);
  }, []);
  return loc;
}

/** The params of `pattern` (`/console/contacts/:ref`) in `path`, or undefined when it does not match. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(got[i]);
    else if (want[i] !== got[i]) return undefined;
  }
  return params;
}

type AnchorProps = Omit<JSX.HTMLAttributes<HTMLAnchorElement>, 'href'> & { href: string; children: ComponentChildren };

/** An in-app link: a real anchor (keyboard, middle click) that moves without reloading. */
export function Link({ href, children, ...rest }: AnchorProps) {
  const onClick = (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
