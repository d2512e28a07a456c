import { accountApi } from '../api/console';
import { api, asJson, ok } from '../api/client';
import { num, percent } from '../components/format';
import { useAsync } from '../components/hooks';
import { day, totalsBy } from '../components/usage';
import { Loading, ProblemView, Section } from '../components/ui';
import { useI18n } from '../i18n';

/** Today at a glance: sends by channel, delivered and read rates, spend, and the balance. */
export function OverviewPage() {
  const { t, locale } = useI18n();
  const usage = useAsync(() => ok(api.GET('/v1/usage', { params: { query: { from: day(), to: day() } } })), []);
  const balance = useAsync(() => accountApi.balance(), []);
  const rows = usage.data ? asJson(usage.data).data : [];
  const byChannel = [...totalsBy(rows, (r) => r.channel)];
  const all = totalsBy(rows, () => 'all').get('all');
  const bal = balance.data;
  return (
    <>
      <h1>{t('nav.overview')}</h1>
      <ProblemView error={usage.error} />
      {usage.loading && <Loading />}
      <div class="tiles">
        <Section title={t('overview.sent')}>
          <p class="big">{num(all?.sent ?? 0, locale)}</p>
        </Section>
        <Section title={t('overview.delivered')}>
          <p class="big">{percent(all?.delivered ?? 0, all?.sent ?? 0, locale)}</p>
        </Section>
        <Section title={t('overview.read')}>
          <p class="big">{percent(all?.read ?? 0, all?.sent ?? 0, locale)}</p>
        </Section>
        <Section title={t('overview.spend')}>
          <p class="big">
            {num(all?.cost ?? 0, locale, 2)} {all?.currency ?? ''}
          </p>
        </Section>
        <Section title={t('billing.balance')}>
          <ProblemView error={balance.error} />
          <p class="big" data-testid="balance">
            {bal ? `${num(bal.balance, locale, 2)} ${bal.currency}` : '—'}
          </p>
        </Section>
      </div>
      <table>
        <caption>{t('overview.byChannel')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('common.channel')}</th>
            <th scope="col">{t('overview.sent')}</th>
            <th scope="col">{t('overview.delivered')}</th>
            <th scope="col">{t('overview.read')}</th>
            <th scope="col">{t('overview.failed')}</th>
            <th scope="col">{t('overview.spend')}</th>
          </tr>
        </thead>
        <tbody>
          {byChannel.map(([channel, v]) => (
            <tr key={channel}>
              <td>{channel}</td>
              <td>{num(v.sent, locale)}</td>
              <td>{percent(v.delivered, v.sent, locale)}</td>
              <td>{percent(v.read, v.sent, locale)}</td>
              <td>{num(v.failed, locale)}</td>
              <td>
                {num(v.cost, locale, 2)} {v.currency}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
