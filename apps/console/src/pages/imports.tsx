import { useState } from 'preact/hooks';
import { api, ok, Schemas } from '../api/client';
import { json } from '../api/http';
import { dateTime } from '../components/format';
import { useAsync, usePoll } from '../components/hooks';
import { PagedTable } from '../components/paged-table';
import { Facts, Progress, ProblemView, Section } from '../components/ui';
import { useI18n } from '../i18n';
import { navigate } from '../router';
import type { PageProps } from '../routes';

type ContactImport = Schemas['ContactImportDto'];
type Rejection = Schemas['ImportRejectionDto'];

/** Rows of a CSV file (lines after the header), counted while streaming it: never held whole. */
async function countRows(file: Blob): Promise<number> {
  const reader = file.stream().getReader();
  let lines = 0;
  let last = 10;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (const byte of value) if (byte === 10) lines++;
    if (value.length) last = value[value.length - 1];
  }
  if (last !== 10) lines++;
  return Math.max(lines - 1, 0);
}

/**
 * Contact imports: upload a CSV file (streamed to the gateway), then follow the import live with a
 * progress bar until it ends, and read its rejection report page by page.
 */
export function ImportsPage({ query }: PageProps) {
  const { t, locale } = useI18n();
  const id = query.get('id') ?? '';
  const total = Number(query.get('rows') ?? 0);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [imp, setImp] = useState<ContactImport>();
  const first = useAsync(
    async () => (id ? ok(api.GET('/v1/contacts/imports/{id}', { params: { path: { id } } })) : undefined),
    [id],
  );
  const current = imp?.id === id ? imp : first.data;
  const running = !!current && (current.state === 'receiving' || current.state === 'processing');

  usePoll(
    async () => {
      const next = await ok(api.GET('/v1/contacts/imports/{id}', { params: { path: { id } } }));
      const changed = next.rows_read !== current?.rows_read || next.state !== current?.state;
      setImp(next);
      return changed;
    },
    running,
    [id],
  );

  const upload = async (e: Event) => {
    e.preventDefault();
    const file = (new FormData(e.currentTarget as HTMLFormElement).get('file') as File | null) ?? undefined;
    if (!file || !file.size) return;
    setBusy(true);
    setError(undefined);
    try {
      const rows = await countRows(file);
      const started = await json<ContactImport>('POST', '/v1/contacts/imports', {
        raw: { body: file, type: file.name.endsWith('.ndjson') ? 'application/x-ndjson' : 'text/csv' },
      });
      setImp(started);
      navigate(`/console/imports?id=${encodeURIComponent(started.id)}&rows=${rows}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1>{t('nav.imports')}</h1>
      <Section title={t('imports.upload')}>
        <p class="muted">{t('imports.help')}</p>
        <form onSubmit={upload} class="inline">
          <div class="field">
            <label for="import-file">{t('imports.file')}</label>
            <input
              id="import-file"
              name="file"
              type="file"
              accept=".csv,.ndjson,text/csv,application/x-ndjson"
              required
            />
          </div>
          <button type="submit" disabled={busy}>
            {t('imports.start')}
          </button>
        </form>
        <ProblemView error={error} />
      </Section>
      <ProblemView error={first.error} />
      {current && (
        <Section title={t('imports.progress')}>
          <Progress label={t('imports.rowsRead')} value={current.rows_read} max={Math.max(total, current.rows_read)} />
          <p data-testid="import-state" role="status">
            {t(`imports.state.${current.state}`)}
          </p>
          <Facts
            items={[
              [t('imports.created'), current.created],
              [t('imports.updated'), current.updated],
              [t('imports.unchanged'), current.unchanged],
              [t('imports.rejected'), current.rejected],
              [t('imports.consentRefused'), current.consent_refused],
              [t('common.created'), dateTime(current.created_at, locale)],
              [t('imports.finished'), dateTime(current.finished_at, locale)],
            ]}
          />
          {current.failure && <p role="alert">{current.failure}</p>}
        </Section>
      )}
      {current && !running && current.rejected > 0 && (
        <PagedTable<Rejection>
          caption={t('imports.rejections')}
          testId="rejections"
          rowKey={(r) => `${r.row}:${r.field}`}
          load={async (cursor) => {
            const page = await ok(
              api.GET('/v1/contacts/imports/{id}', {
                params: { path: { id }, query: { after_row: cursor } },
              }),
            );
            return { rows: page.rejections, next: page.next_after_row ? String(page.next_after_row) : undefined };
          }}
          columns={[
            { label: t('imports.row'), render: (r) => r.row },
            { label: t('contacts.externalId'), render: (r) => r.external_id ?? '—' },
            { label: t('imports.field'), render: (r) => r.field ?? '—' },
            { label: t('imports.reason'), render: (r) => r.reason },
          ]}
        />
      )}
    </>
  );
}
