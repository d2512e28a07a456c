import { useState } from 'preact/hooks';
import { api, ok, Schemas } from '../api/client';
import { dateTime } from '../components/format';
import { PAGE_LIMIT, PagedTable } from '../components/paged-table';
import { Select } from '../components/ui';
import { useI18n } from '../i18n';
import { can } from '../roles';
import { Link } from '../router';
import { useUser } from '../session-context';

type Campaign = Schemas['CampaignDto'];
export const CAMPAIGN_STATES = ['draft', 'scheduled', 'running', 'paused', 'completed', 'cancelled'] as const;

/** Campaigns, newest first, filtered by state; a manager starts a new one from here. */
export function CampaignsPage() {
  const { t, locale } = useI18n();
  const user = useUser();
  const [state, setState] = useState('');
  return (
    <>
      <h1>{t('nav.campaigns')}</h1>
      <div class="actions">
        {can.manage(user.role) && (
          <Link class="button" href="/console/campaigns/new">
            {t('campaigns.new')}
          </Link>
        )}
        <Select
          label={t('common.status')}
          value={state}
          onChange={(e) => setState((e.currentTarget as HTMLSelectElement).value)}
          options={[
            { value: '', label: t('common.any') },
            ...CAMPAIGN_STATES.map((s) => ({ value: s, label: t(`campaign.state.${s}`) })),
          ]}
        />
      </div>
      <PagedTable<Campaign>
        caption={t('campaigns.caption')}
        filterKey={state}
        rowKey={(c) => c.id}
        load={async (cursor) => {
          const query = { cursor, limit: PAGE_LIMIT, state: (state || undefined) as Campaign['state'] | undefined };
          const page = await ok(api.GET('/v1/campaigns', { params: { query } }));
          return { rows: page.data, next: page.next_cursor };
        }}
        columns={[
          {
            label: t('common.name'),
            render: (c) => <Link href={`/console/campaigns/${encodeURIComponent(c.id)}`}>{c.name}</Link>,
          },
          { label: t('common.status'), render: (c) => t(`campaign.state.${c.state}`) },
          { label: t('campaigns.recipients'), render: (c) => c.recipients },
          { label: t('campaigns.delivered'), render: (c) => c.counts.delivered + c.counts.read },
          { label: t('campaigns.failed'), render: (c) => c.counts.failed },
          { label: t('common.created'), render: (c) => dateTime(c.created_at, locale) },
        ]}
      />
    </>
  );
}
