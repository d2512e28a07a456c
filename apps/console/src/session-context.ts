import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ConsoleUser } from './api/console';

export const UserContext = createContext<ConsoleUser | undefined>(undefined);

/** The signed-in user (pages are only rendered inside a session). */
export function useUser(): ConsoleUser {
  const user = useContext(UserContext);
  if (!user) throw new Error('no session');
  return user;
}
