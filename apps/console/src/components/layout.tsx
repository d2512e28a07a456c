import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ConsoleUser, consoleApi } from '../api/console';
import { MessageKey, useI18n } from '../i18n';
import { can } from '../roles';
import { BASE, Link } from '../router';
import { LanguageSwitch } from './language-switch';
import { ProblemView } from './ui';

interface NavItem {
  href: string;
  key: MessageKey;
  show?: (user: ConsoleUser) => boolean;
}

export const NAV: NavItem[] = [
  { href: `${BASE}/`, key: 'nav.overview' },
  { href: `${BASE}/connections`, key: 'nav.connections' },
  { href: `${BASE}/tokens`, key: 'nav.tokens', show: (u) => can.tokens(u.role) },
  { href: `${BASE}/templates`, key: 'nav.templates' },
  { href: `${BASE}/contacts`, key: 'nav.contacts' },
  { href: `${BASE}/imports`, key: 'nav.imports' },
  { href: `${BASE}/campaigns`, key: 'nav.campaigns' },
  { href: `${BASE}/messages`, key: 'nav.messages' },
  { href: `${BASE}/conversations`, key: 'nav.conversations' },
  { href: `${BASE}/usage`, key: 'nav.usage' },
  { href: `${BASE}/billing`, key: 'nav.billing' },
  { href: `${BASE}/webhooks`, key: 'nav.webhooks' },
  { href: `${BASE}/users`, key: 'nav.users', show: (u) => can.users(u.role) },
  { href: `${BASE}/audit`, key: 'nav.audit', show: (u) => can.audit(u.role) },
];

function isCurrent(href: string, path: string): boolean {
  return href === `${BASE}/` ? path === href : path === href || path.startsWith(`${href}/`);
}

/** The signed-in frame: skip link, header (account, user, language, sign out), navigation, main. */
export function Layout(props: {
  user: ConsoleUser;
  path: string;
  onSignedOut: () => void;
  children: ComponentChildren;
}) {
  const { t } = useI18n();
  const [error, setError] = useState<unknown>();
  const signOut = async (everywhere: boolean) => {
    try {
      await (everywhere ? consoleApi.signOutEverywhere() : consoleApi.signOut());
      props.onSignedOut();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <div class="shell">
      <a class="skip" href="#main">
        {t('nav.skip')}
      </a>
      <header class="top">
        <span class="account">{props.user.account_name}</span>
        <span class="muted">
          {props.user.email} · {t(`role.${props.user.role}`)}
        </span>
        <LanguageSwitch />
        <button type="button" onClick={() => signOut(false)}>
          {t('nav.signOut')}
        </button>
        <button type="button" class="secondary" onClick={() => signOut(true)}>
          {t('nav.signOutEverywhere')}
        </button>
      </header>
      <nav class="side" aria-label={t('nav.label')}>
        <ul>
          {NAV.filter((item) => !item.show || item.show(props.user)).map((item) => (
            <li key={item.href}>
              <Link href={item.href} aria-current={isCurrent(item.href, props.path) ? 'page' : undefined}>
                {t(item.key)}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <ProblemView error={error} />
        {props.children}
      </main>
    </div>
  );
}
