import { accountApi, Transaction } from '../api/console';
import { api, ok, Schemas } from '../api/client';
import { dateTime, num } from '../components/format';
import { useAsync } from '../components/hooks';
import { PAGE_LIMIT, PagedTable } from '../components/paged-table';
import { day } from '../components/usage';
import { ProblemView, Section } from '../components/ui';
import { useI18n } from '../i18n';
import { Link } from '../router';

/** Billing: the balance, its transactions page by page, and the spend of each campaign this month. */
export function BillingPage() {
  const { t, locale } = useI18n();
  const balance = useAsync(() => accountApi.balance(), []);
  const bal = balance.data;
  return (
    <>
      <h1>{t('nav.billing')}</h1>
      <Section title={t('billing.balance')}>
        <ProblemView error={balance.error} />
        <p class="big">{bal ? `${num(bal.balance, locale, 2)} ${bal.currency}` : '—'}</p>
      </Section>
      <PagedTable<Transaction>
        caption={t('billing.transactions')}
        rowKey={(r) => String(r.id)}
        load={async (cursor) => {
          const page = await accountApi.transactions(cursor);
          return { rows: page.data, next: page.next_cursor };
        }}
        columns={[
          { label: t('common.time'), render: (r) => dateTime(r.timestamp, locale) },
          { label: t('common.status'), render: (r) => r.status },
          { label: t('messages.category'), render: (r) => r.category ?? '—' },
          { label: t('messages.to'), render: (r) => r.recipient_phone ?? '—' },
          { label: t('billing.amount'), render: (r) => `${num(r.amount, locale, 2)} ${r.currency}` },
        ]}
      />
      <PagedTable<Schemas['CampaignSpendRowDto']>
        caption={t('billing.campaignSpend')}
        rowKey={(r) => r.campaign_id}
        load={async (cursor) => {
          const query = { cursor, limit: PAGE_LIMIT, from: day(30), to: day() };
          const page = await ok(api.GET('/v1/usage/campaigns', { params: { query } }));
          return { rows: page.data, next: page.next_cursor };
        }}
        columns={[
          {
            label: t('billing.campaign'),
            render: (r) => (
              <Link href={`/console/campaigns/${encodeURIComponent(r.campaign_id)}`}>{r.campaign_id}</Link>
            ),
          },
          { label: t('billing.messages'), render: (r) => num(r.charged_messages, locale) },
          { label: t('billing.amount'), render: (r) => `${num(r.cost, locale, 2)} ${r.currency}` },
        ]}
      />
    </>
  );
}
