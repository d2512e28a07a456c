import { useState } from 'preact/hooks';
import { api, ok, Schemas } from '../api/client';
import { dateTime } from '../components/format';
import { usePoll } from '../components/hooks';
import { PAGE_LIMIT, PagedTable } from '../components/paged-table';
import { Select } from '../components/ui';
import { useI18n } from '../i18n';
import { Link } from '../router';

type Conversation = Schemas['ConversationDto'];
export const CONVERSATION_STATUSES = ['open', 'pending', 'closed'] as const;

/** Conversations, most recent first, by status; the list refreshes itself while shown. */
export function ConversationsPage() {
  const { t, locale } = useI18n();
  const [status, setStatus] = useState('open');
  const [refresh, setRefresh] = useState(0);
  const [since, setSince] = useState(Math.floor(Date.now() / 1000));
  usePoll(async () => {
    const page = await ok(api.GET('/v1/conversations', { params: { query: { updated_since: since, limit: '1' } } }));
    if (!page.data.length) return false;
    setSince(Math.floor(Date.now() / 1000));
    setRefresh((n) => n + 1);
    return true;
  }, true);
  return (
    <>
      <h1>{t('nav.conversations')}</h1>
      <Select
        label={t('common.status')}
        value={status}
        onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value)}
        options={[
          { value: '', label: t('common.any') },
          ...CONVERSATION_STATUSES.map((s) => ({ value: s, label: t(`conversation.status.${s}`) })),
        ]}
      />
      <PagedTable<Conversation>
        caption={t('conversations.caption')}
        filterKey={status}
        refresh={refresh}
        rowKey={(c) => c.id}
        load={async (cursor) => {
          const query = {
            cursor,
            limit: PAGE_LIMIT,
            status: (status || undefined) as Conversation['status'] | undefined,
          };
          const page = await ok(api.GET('/v1/conversations', { params: { query } }));
          return { rows: page.data, next: page.next_cursor };
        }}
        columns={[
          {
            label: t('contacts.contact'),
            render: (c) => (
              <Link href={`/console/conversations/${encodeURIComponent(c.id)}`}>
                {c.contact.name || c.contact.address}
              </Link>
            ),
          },
          { label: t('common.channel'), render: (c) => c.channel },
          { label: t('common.status'), render: (c) => t(`conversation.status.${c.status}`) },
          { label: t('conversations.assignee'), render: (c) => c.assignee ?? '—' },
          { label: t('conversations.unread'), render: (c) => c.unread_count },
          { label: t('conversations.last'), render: (c) => dateTime(c.last_message_at, locale) },
        ]}
      />
    </>
  );
}
