import { useMemo, useState } from 'preact/hooks';
import { api, asJson, ok } from '../api/client';
import { download } from '../api/http';
import { Chart } from '../components/chart';
import { num } from '../components/format';
import { useAsync } from '../components/hooks';
import { day, totalsBy, UsageRow } from '../components/usage';
import { Field, Loading, ProblemView, Section } from '../components/ui';
import { useI18n } from '../i18n';

function Breakdown({ title, rows, by }: { title: string; rows: UsageRow[]; by: (r: UsageRow) => string }) {
  const { t, locale } = useI18n();
  const totals = useMemo(() => [...totalsBy(rows, by)], [rows, by]);
  const x = useMemo(() => totals.map((_, i) => i), [totals]);
  const series = useMemo(
    () => [
      { label: t('usage.sent'), values: totals.map(([, v]) => v.sent) },
      { label: t('overview.failed'), values: totals.map(([, v]) => v.failed) },
    ],
    [totals, t],
  );
  return (
    <Section title={title}>
      {totals.length > 0 && <Chart label={title} x={x} series={series} bars />}
      <table>
        <caption class="sr-only">{title}</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">{title}</th>
            <th scope="col">{t('usage.sent')}</th>
            <th scope="col">{t('overview.failed')}</th>
            <th scope="col">{t('overview.spend')}</th>
          </tr>
        </thead>
        <tbody>
          {totals.map(([k, v], i) => (
            <tr key={k}>
              <td>{i}</td>
              <td>{k}</td>
              <td>{num(v.sent, locale)}</td>
              <td>{num(v.failed, locale)}</td>
              <td>
                {num(v.cost, locale, 2)} {v.currency}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

const byChannel = (r: UsageRow) => r.channel;
const byCategory = (r: UsageRow) => r.category;

/** Usage over a period (at most the gateway's limit): charts by channel, category and hour; the CSV. */
export function UsagePage() {
  const { t } = useI18n();
  const [period, setPeriod] = useState({ from: day(6), to: day() });
  const [error, setError] = useState<unknown>();
  const usage = useAsync(() => ok(api.GET('/v1/usage', { params: { query: period } })), [period.from, period.to]);
  const rows = useMemo(() => (usage.data ? asJson(usage.data).data : []), [usage.data]);
  const hours = useMemo(() => [...totalsBy(rows, (r) => r.hour)].sort(([a], [b]) => a.localeCompare(b)), [rows]);
  const hourX = useMemo(() => hours.map(([h]) => Date.parse(h) / 1000), [hours]);
  const hourSeries = useMemo(() => [{ label: t('usage.sent'), values: hours.map(([, v]) => v.sent) }], [hours, t]);
  const apply = (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    setPeriod({ from: String(data.get('from')), to: String(data.get('to')) });
  };
  const csv = async () => {
    setError(undefined);
    try {
      await download('/v1/usage', period, `usage-${period.from}-${period.to}.csv`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <h1>{t('nav.usage')}</h1>
      <form onSubmit={apply} class="filters">
        <Field label={t('common.from')} name="from" type="date" defaultValue={period.from} required />
        <Field label={t('common.to')} name="to" type="date" defaultValue={period.to} required />
        <button type="submit">{t('common.apply')}</button>
        <button type="button" class="secondary" onClick={csv}>
          {t('usage.csv')}
        </button>
      </form>
      <ProblemView error={error ?? usage.error} />
      {usage.loading && <Loading />}
      <Section title={t('usage.byHour')}>
        {hours.length > 0 ? (
          <Chart label={t('usage.byHour')} x={hourX} series={hourSeries} />
        ) : (
          <p class="muted">{t('common.empty')}</p>
        )}
      </Section>
      <Breakdown title={t('common.channel')} rows={rows} by={byChannel} />
      <Breakdown title={t('messages.category')} rows={rows} by={byCategory} />
    </>
  );
}
