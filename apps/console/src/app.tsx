import { useEffect, useMemo, useState } from 'preact/hooks';
import { ConsoleUser, consoleApi } from './api/console';
import { ProblemError } from './api/problem';
import { onUnauthorized } from './api/session';
import { Layout } from './components/layout';
import { Loading, ProblemView } from './components/ui';
import { I18nContext, Locale, storedLocale, storeLocale, translator } from './i18n';
import { routeFor } from './routes';
import { BASE, navigate, useLocation } from './router';
import { UserContext } from './session-context';
import { InvitePage } from './pages/invite';
import { SignInPage } from './pages/sign-in';

type SessionState = { state: 'loading' } | { state: 'out'; error?: unknown } | { state: 'in'; user: ConsoleUser };

/**
 * The console: reads the session on load (GET /console/api/session: the CSRF token is held in
 * memory only), shows the sign-in or invitation page without one and the signed-in pages with one.
 */
export function App() {
  const [locale, setLocaleState] = useState<Locale>(storedLocale);
  const [session, setSession] = useState<SessionState>({ state: 'loading' });
  const loc = useLocation();

  const i18n = useMemo(
    () => ({
      locale,
      t: translator(locale),
      setLocale: (next: Locale) => {
        storeLocale(next);
        setLocaleState(next);
        if (session.state === 'in') consoleApi.setLocale(next).catch(() => undefined);
      },
    }),
    [locale, session.state],
  );

  useEffect(() => {
    document.documentElement.lang = locale;
  }, [locale]);

  useEffect(() => {
    consoleApi.session().then(
      (user) => setSession({ state: 'in', user }),
      (error: unknown) =>
        setSession(
          error instanceof ProblemError && error.problem.status === 401 ? { state: 'out' } : { state: 'out', error },
        ),
    );
    return onUnauthorized(() => setSession({ state: 'out' }));
  }, []);

  const signedIn = (user: ConsoleUser) => {
    setSession({ state: 'in', user });
    if (!localStorage.getItem('console.locale') && (user.locale === 'en' || user.locale === 'ru')) {
      setLocaleState(user.locale);
    }
    const back = loc.query.get('next');
    navigate(back && back.startsWith(`${BASE}/`) ? back : `${BASE}/`, true);
  };

  let body;
  if (session.state === 'loading') {
    body = <Loading />;
  } else if (loc.path === `${BASE}/invite`) {
    body = <InvitePage onSignedIn={signedIn} />;
  } else if (session.state === 'out') {
    body = (
      <>
        <ProblemView error={session.error} />
        <SignInPage onSignedIn={signedIn} />
      </>
    );
  } else {
    const { Page, params } = routeFor(loc.path, session.user.role);
    body = (
      <UserContext.Provider value={session.user}>
        <Layout user={session.user} path={loc.path} onSignedOut={() => setSession({ state: 'out' })}>
          <Page params={params} query={loc.query} />
        </Layout>
      </UserContext.Provider>
    );
  }
  return <I18nContext.Provider value={i18n}>{body}</I18nContext.Provider>;
}
