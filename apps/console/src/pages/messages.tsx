import { useRef, useState } from 'preact/hooks';
import { api, ok, paths, Schemas } from '../api/client';
import { dateTime, num } from '../components/format';
import { PAGE_LIMIT, PagedTable } from '../components/paged-table';
import { Field, Select } from '../components/ui';
import { useI18n } from '../i18n';
import { Link } from '../router';
import { CHANNELS } from './channels';

type Message = Schemas['MessageReportDto'];
type Query = NonNullable<paths['/v1/messages']['get']['parameters']['query']>;
const STATUSES = ['QUEUED', 'SENT', 'DELIVERED', 'READ', 'FAILED'] as const;

/** The delivery report: messages filtered by channel, status, period and campaign, page by page. */
export function MessagesPage() {
  const { t, locale } = useI18n();
  const form = useRef<HTMLFormElement>(null);
  const [filters, setFilters] = useState<Record<string, string>>({});
  const apply = (e: Event) => {
    e.preventDefault();
    const data = new FormData(form.current as HTMLFormElement);
    setFilters(Object.fromEntries([...data.entries()].map(([k, v]) => [k, String(v)]).filter(([, v]) => v)));
  };
  return (
    <>
      <h1>{t('nav.messages')}</h1>
      <form ref={form} onSubmit={apply} class="filters">
        <Select
          label={t('common.channel')}
          name="channel"
          options={[{ value: '', label: t('common.any') }, ...CHANNELS.map((c) => ({ value: c, label: c }))]}
        />
        <Select
          label={t('common.status')}
          name="status"
          options={[{ value: '', label: t('common.any') }, ...STATUSES.map((s) => ({ value: s, label: s }))]}
        />
        <Field label={t('common.from')} name="from" type="date" />
        <Field label={t('common.to')} name="to" type="date" />
        <Field label={t('billing.campaign')} name="campaign_id" />
        <button type="submit">{t('common.apply')}</button>
      </form>
      <PagedTable<Message>
        caption={t('messages.caption')}
        filterKey={JSON.stringify(filters)}
        rowKey={(m) => m.id}
        load={async (cursor) => {
          const query = { ...filters, cursor, limit: PAGE_LIMIT } as Query;
          const page = await ok(api.GET('/v1/messages', { params: { query } }));
          return { rows: page.data, next: page.next_cursor };
        }}
        columns={[
          { label: t('common.time'), render: (m) => dateTime(m.created_at, locale) },
          {
            label: t('messages.to'),
            render: (m) => <Link href={`/console/messages/${encodeURIComponent(m.id)}`}>{m.to}</Link>,
          },
          { label: t('common.channel'), render: (m) => m.channel },
          { label: t('common.status'), render: (m) => m.status },
          { label: t('messages.category'), render: (m) => m.category ?? '—' },
          { label: t('messages.price'), render: (m) => `${num(m.charged, locale, 4)} ${m.currency ?? ''}` },
        ]}
      />
    </>
  );
}
