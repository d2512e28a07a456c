import { AuditEntry, consoleApi } from '../api/console';
import { dateTime, text } from '../components/format';
import { PagedTable } from '../components/paged-table';
import { useI18n } from '../i18n';

/** The audit log: who changed what through the console, newest first, page by page. */
export function AuditPage() {
  const { t, locale } = useI18n();
  return (
    <>
      <h1>{t('nav.audit')}</h1>
      <PagedTable<AuditEntry>
        caption={t('audit.caption')}
        rowKey={(r) => `${r.at}:${r.user_email}:${r.action}:${r.target}`}
        load={async (cursor) => {
          const page = await consoleApi.audit(cursor);
          return { rows: page.data, next: page.next_cursor };
        }}
        columns={[
          { label: t('common.time'), render: (r) => dateTime(r.at, locale) },
          { label: t('audit.user'), render: (r) => r.user_email },
          { label: t('audit.action'), render: (r) => r.action },
          { label: t('audit.target'), render: (r) => r.target ?? '—' },
          { label: t('audit.details'), render: (r) => <span class="clip">{text(r.details)}</span> },
        ]}
      />
    </>
  );
}
