import type { FunctionComponent } from 'preact';
import type { Role } from './api/console';
import { useI18n } from './i18n';
import { can } from './roles';
import { BASE, match } from './router';
import { AuditPage } from './pages/audit';
import { BillingPage } from './pages/billing';
import { CampaignPage } from './pages/campaign';
import { CampaignNewPage } from './pages/campaign-new';
import { CampaignsPage } from './pages/campaigns';
import { ConnectionsPage } from './pages/connections';
import { ContactPage } from './pages/contact';
import { ContactsPage } from './pages/contacts';
import { ConversationPage } from './pages/conversation';
import { ConversationsPage } from './pages/conversations';
import { ImportsPage } from './pages/imports';
import { MessagePage } from './pages/message';
import { MessagesPage } from './pages/messages';
import { OverviewPage } from './pages/overview';
import { TemplatesPage } from './pages/templates';
import { TokensPage } from './pages/tokens';
import { UsagePage } from './pages/usage';
import { UsersPage } from './pages/users';
import { WebhooksPage } from './pages/webhooks';

export interface PageProps {
  params: Record<string, string>;
  query: URLSearchParams;
}

type Page = FunctionComponent<PageProps>;

const ROUTES: [string, Page, ((role: Role) => boolean)?][] = [
  [`${BASE}/`, OverviewPage],
  [`${BASE}/connections`, ConnectionsPage],
  [`${BASE}/tokens`, TokensPage, can.tokens],
  [`${BASE}/templates`, TemplatesPage],
  [`${BASE}/contacts`, ContactsPage],
  [`${BASE}/contacts/:ref`, ContactPage],
  [`${BASE}/imports`, ImportsPage],
  [`${BASE}/campaigns`, CampaignsPage],
  [`${BASE}/campaigns/new`, CampaignNewPage, can.manage],
  [`${BASE}/campaigns/:id`, CampaignPage],
  [`${BASE}/messages`, MessagesPage],
  [`${BASE}/messages/:id`, MessagePage],
  [`${BASE}/usage`, UsagePage],
  [`${BASE}/billing`, BillingPage],
  [`${BASE}/webhooks`, WebhooksPage],
  [`${BASE}/conversations`, ConversationsPage],
  [`${BASE}/conversations/:id`, ConversationPage],
  [`${BASE}/users`, UsersPage, can.users],
  [`${BASE}/audit`, AuditPage, can.audit],
];

function NotFound() {
  const { t } = useI18n();
  return <h1>{t('common.notFound')}</h1>;
}

function Forbidden() {
  const { t } = useI18n();
  return <h1>{t('common.forbidden')}</h1>;
}

/** The page for a console path (and its params); a page the role may not open shows so. */
export function routeFor(path: string, role: Role): { Page: Page; params: Record<string, string> } {
  for (const [pattern, Page, allowed] of ROUTES) {
    const params = match(pattern, path);
    if (params) return { Page: allowed && !allowed(role) ? Forbidden : Page, params };
  }
  return { Page: NotFound, params: {} };
}
