import { api, ok } from '../api/client';
import { dateTime, num, text } from '../components/format';
import { useAsync } from '../components/hooks';
import { Facts, Loading, LoadProblem, Section } from '../components/ui';
import { useI18n } from '../i18n';
import { Link } from '../router';
import type { PageProps } from '../routes';

/** One message: its facts, its status timeline and each channel attempt (failover). */
export function MessagePage({ params }: PageProps) {
  const { t, locale } = useI18n();
  const id = params.id;
  const msg = useAsync(() => ok(api.GET('/v1/messages/{id}', { params: { path: { id } } })), [id]);
  const m = msg.data;
  return (
    <>
      <h1>{t('messages.message')}</h1>
      <p>
        <Link href="/console/messages">{t('common.back')}</Link>
      </p>
      <LoadProblem error={msg.error} />
      {msg.loading && <Loading />}
      {m && (
        <>
          <Section title={t('contacts.details')}>
            <Facts
              items={[
                [t('common.id'), m.id],
                [t('messages.to'), m.to],
                [t('common.channel'), m.channel],
                [t('common.status'), m.status],
                [t('messages.category'), m.category ?? '—'],
                [t('messages.price'), `${num(m.charged, locale, 4)} ${m.currency ?? ''}`],
                [t('messages.failure'), text(m.failure)],
                [t('common.created'), dateTime(m.created_at, locale)],
              ]}
            />
            {m.campaign_id && (
              <Link href={`/console/campaigns/${encodeURIComponent(m.campaign_id)}`}>{t('billing.campaign')}</Link>
            )}
          </Section>
          <Section title={t('messages.timeline')}>
            <ol data-testid="timeline">
              {m.timeline.map((e, i) => (
                <li key={i}>
                  {e.status}: {dateTime(e.timestamp, locale)}
                </li>
              ))}
            </ol>
          </Section>
          <Section title={t('messages.attempts')}>
            <ol>
              {(m.attempts ?? []).map((a, i) => (
                <li key={i}>
                  {a.channel}: {a.status} ({dateTime(a.created_at, locale)}){a.failure ? ` · ${text(a.failure)}` : ''}
                </li>
              ))}
            </ol>
          </Section>
        </>
      )}
    </>
  );
}
