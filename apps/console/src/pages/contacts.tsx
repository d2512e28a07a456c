import { useRef, useState } from 'preact/hooks';
import { api, asJson, ok, Schemas } from '../api/client';
import { download } from '../api/http';
import { dateTime } from '../components/format';
import { PAGE_LIMIT, PagedTable } from '../components/paged-table';
import { Field, ProblemView, Select } from '../components/ui';
import { useI18n } from '../i18n';
import { Link } from '../router';
import { CHANNELS } from './channels';

type Contact = Schemas['ContactDto'];
type Channel = (typeof CHANNELS)[number];

/** Contacts: search, filter by list and channel, page through, open one, export the matching ones. */
export function ContactsPage() {
  const { t, locale } = useI18n();
  const [filters, setFilters] = useState({ q: '', list: '', channel: '' });
  const [error, setError] = useState<unknown>();
  const form = useRef<HTMLFormElement>(null);

  const apply = (e: Event) => {
    e.preventDefault();
    const data = new FormData(form.current as HTMLFormElement);
    setFilters({ q: String(data.get('q')), list: String(data.get('list')), channel: String(data.get('channel')) });
  };
  const query = {
    q: filters.q || undefined,
    list: filters.list || undefined,
    channel: (filters.channel || undefined) as Channel | undefined,
  };
  const exportCsv = async () => {
    setError(undefined);
    try {
      await download('/v1/contacts', query, 'contacts.csv');
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <h1>{t('nav.contacts')}</h1>
      <form ref={form} onSubmit={apply} class="filters" role="search">
        <Field label={t('contacts.search')} name="q" type="search" />
        <Field label={t('contacts.list')} name="list" />
        <Select
          label={t('common.channel')}
          name="channel"
          options={[{ value: '', label: t('common.any') }, ...CHANNELS.map((c) => ({ value: c, label: c }))]}
        />
        <button type="submit">{t('common.apply')}</button>
      </form>
      <div class="actions">
        <Link href="/console/imports">{t('contacts.import')}</Link>
        <button type="button" class="secondary" onClick={exportCsv}>
          {t('contacts.export')}
        </button>
      </div>
      <ProblemView error={error} />
      <PagedTable<Contact>
        caption={t('contacts.caption')}
        filterKey={JSON.stringify(filters)}
        rowKey={(c) => c.id}
        load={async (cursor) => {
          const page = asJson(
            await ok(api.GET('/v1/contacts', { params: { query: { ...query, cursor, limit: PAGE_LIMIT } } })),
          );
          return { rows: page.data, next: page.next_cursor };
        }}
        columns={[
          {
            label: t('common.name'),
            render: (c) => (
              <Link href={`/console/contacts/${encodeURIComponent(c.id)}`}>{c.name || c.external_id || c.id}</Link>
            ),
          },
          { label: t('contacts.externalId'), render: (c) => c.external_id ?? '—' },
          {
            label: t('contacts.addresses'),
            render: (c) => c.addresses.map((a) => `${a.channel}: ${a.value}`).join(', '),
          },
          { label: t('contacts.lists'), render: (c) => c.lists.join(', ') },
          { label: t('common.created'), render: (c) => dateTime(c.created_at, locale) },
        ]}
      />
    </>
  );
}
