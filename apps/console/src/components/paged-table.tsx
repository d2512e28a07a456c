import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useI18n } from '../i18n';
import { useAsync } from './hooks';
import { Loading, ProblemView } from './ui';

/** The console's page size: lists are always read a page at a time, never whole. */
export const PAGE_SIZE = 50;
/** PAGE_SIZE as the `limit` query parameter. */
export const PAGE_LIMIT = String(PAGE_SIZE);

export interface PageOf<T> {
  rows: T[];
  next?: string | null;
}

export interface Column<T> {
  label: string;
  render: (row: T) => ComponentChildren;
}

/**
 * A cursor-paged table: `load(cursor)` reads one page of PAGE_SIZE rows; Next follows the page's
 * cursor, Previous goes back to the cursor it came from. Changing `filterKey` starts over from the
 * first page; changing `refresh` reloads the page shown.
 */
export function PagedTable<T>(props: {
  caption: string;
  columns: Column<T>[];
  load: (cursor: string | undefined) => Promise<PageOf<T>>;
  rowKey: (row: T) => string;
  filterKey?: string;
  refresh?: number;
  testId?: string;
}) {
  const { t } = useI18n();
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  useEffect(() => setCursors([undefined]), [props.filterKey]);
  const cursor = cursors[cursors.length - 1];
  const page = useAsync(() => props.load(cursor), [cursor, props.filterKey, props.refresh]);
  const rows = page.data?.rows ?? [];
  return (
    <div class="table-wrap" data-testid={props.testId}>
      <ProblemView error={page.error} />
      <table>
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th key={c.label} scope="col">
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={props.rowKey(row)}>
              {props.columns.map((c) => (
                <td key={c.label}>{c.render(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {page.loading && <Loading />}
      {!page.loading && !page.error && rows.length === 0 && <p class="muted">{t('common.empty')}</p>}
      <nav class="pager" aria-label={t('common.pages')}>
        <button type="button" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
          {t('common.previous')}
        </button>
        <span>{t('common.page', { n: cursors.length })}</span>
        <button
          type="button"
          disabled={!page.data?.next}
          onClick={() => setCursors((c) => [...c, page.data?.next ?? undefined])}
        >
          {t('common.next')}
        </button>
      </nav>
    </div>
  );
}
