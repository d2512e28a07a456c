import { api, ok, Schemas } from '../api/client';
import { dateTime, text } from '../components/format';
import { useAsync } from '../components/hooks';
import { PAGE_LIMIT, PagedTable } from '../components/paged-table';
import { Facts, isNotFound, Loading, LoadProblem, ProblemView, Section } from '../components/ui';
import { useI18n } from '../i18n';
import { Link } from '../router';
import type { PageProps } from '../routes';

type Message = Schemas['MessageReportDto'];

/** One contact: its fields, addresses, consent (now and its history) and the messages sent to it. */
export function ContactPage({ params }: PageProps) {
  const { t, locale } = useI18n();
  const ref = params.ref;
  const contact = useAsync(() => ok(api.GET('/v1/contacts/{ref}', { params: { path: { ref } } })), [ref]);
  const consent = useAsync(() => ok(api.GET('/v1/contacts/{ref}/consent', { params: { path: { ref } } })), [ref]);
  const c = contact.data;
  return (
    <>
      <h1>{c ? c.name || c.external_id || c.id : t('contacts.contact')}</h1>
      <p>
        <Link href="/console/contacts">{t('common.back')}</Link>
      </p>
      <LoadProblem error={contact.error} />
      {contact.loading && <Loading />}
      {c && (
        <Section title={t('contacts.details')}>
          <Facts
            items={[
              [t('common.id'), c.id],
              [t('contacts.externalId'), c.external_id ?? '—'],
              [t('contacts.language'), c.language ?? '—'],
              [t('contacts.timeZone'), c.time_zone ?? '—'],
              [t('contacts.lists'), c.lists.join(', ') || '—'],
              [t('contacts.attributes'), text(c.attributes)],
              [t('common.created'), dateTime(c.created_at, locale)],
            ]}
          />
          <h3>{t('contacts.addresses')}</h3>
          <ul>
            {c.addresses.map((a) => (
              <li key={`${a.channel}:${a.kind}:${a.value}`}>
                {a.channel} ({a.kind}): {a.value}
              </li>
            ))}
          </ul>
        </Section>
      )}
      {/* Consent belongs to a contact shown: nothing of a record this account lacks. */}
      {!isNotFound(contact.error) && (
        <Section title={t('contacts.consent')}>
          <ProblemView error={consent.error} />
          {consent.data && (
            <>
              <table>
                <caption>{t('contacts.consentNow')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('common.channel')}</th>
                    <th scope="col">{t('contacts.purpose')}</th>
                    <th scope="col">{t('common.status')}</th>
                    <th scope="col">{t('contacts.source')}</th>
                    <th scope="col">{t('contacts.since')}</th>
                  </tr>
                </thead>
                <tbody>
                  {consent.data.states.map((s, i) => (
                    <tr key={i}>
                      <td>{s.channel}</td>
                      <td>{s.purpose}</td>
                      <td>{s.state}</td>
                      <td>{s.source}</td>
                      <td>{dateTime(s.since, locale)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <table>
                <caption>{t('contacts.consentHistory')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('common.time')}</th>
                    <th scope="col">{t('common.channel')}</th>
                    <th scope="col">{t('contacts.purpose')}</th>
                    <th scope="col">{t('common.status')}</th>
                    <th scope="col">{t('contacts.evidence')}</th>
                  </tr>
                </thead>
                <tbody>
                  {consent.data.history.map((h, i) => (
                    <tr key={i}>
                      <td>{dateTime(h.at, locale)}</td>
                      <td>{h.channel}</td>
                      <td>{h.purpose}</td>
                      <td>{h.state}</td>
                      <td>{h.evidence ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
        </Section>
      )}
      {c && (
        <PagedTable<Message>
          caption={t('contacts.messages')}
          rowKey={(m) => m.id}
          load={async (cursor) => {
            const page = await ok(
              api.GET('/v1/messages', { params: { query: { contact_id: c.id, cursor, limit: PAGE_LIMIT } } }),
            );
            return { rows: page.data, next: page.next_cursor };
          }}
          columns={[
            { label: t('common.time'), render: (m) => dateTime(m.created_at, locale) },
            { label: t('common.channel'), render: (m) => m.channel },
            {
              label: t('common.status'),
              render: (m) => <Link href={`/console/messages/${encodeURIComponent(m.id)}`}>{m.status}</Link>,
            },
            { label: t('messages.category'), render: (m) => m.category ?? '—' },
          ]}
        />
      )}
    </>
  );
}
