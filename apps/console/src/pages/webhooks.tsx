import { useState } from 'preact/hooks';
import { accountApi, DeliveryStatus, WebhookDelivery, WebhookEvents, WebhookSubscription } from '../api/console';
import { dateTime } from '../components/format';
import { useAsync } from '../components/hooks';
import { PagedTable } from '../components/paged-table';
import { ConfirmButton, Field, Loading, ProblemView, Section, Select } from '../components/ui';
import { useI18n } from '../i18n';
import { can } from '../roles';
import { useUser } from '../session-context';

function Attempts({ delivery }: { delivery: WebhookDelivery }) {
  const { locale } = useI18n();
  const attempts = delivery.attempt_log;
  if (!attempts.length) return <span>{delivery.attempts}</span>;
  return (
    <ol class="attempts">
      {attempts.map((a) => (
        <li key={a.attempt}>
          {dateTime(a.created_at, locale)}: {a.status} {a.response_status ?? ''}
          {a.error ? ` · ${a.error}` : ''}
        </li>
      ))}
    </ol>
  );
}

const DELIVERY_STATUSES: DeliveryStatus[] = ['PENDING', 'SUCCEEDED', 'FAILED'];

/** The endpoint's deliveries, newest first, a page at a time, optionally of one status; replay one. */
function Deliveries({ subscription }: { subscription: WebhookSubscription }) {
  const { t, locale } = useI18n();
  const user = useUser();
  const id = String(subscription.id);
  const [refresh, setRefresh] = useState(0);
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const replay = async (delivery: WebhookDelivery) => {
    setError(undefined);
    try {
      await accountApi.resend(id, String(delivery.id));
      setDone(t('webhooks.replayed', { id: String(delivery.id) }));
      setRefresh((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <ProblemView error={error} />
      {done && <p role="status">{done}</p>}
      <div class="filters">
        <Select
          label={t('webhooks.deliveryStatus')}
          name="delivery-status"
          value={status}
          onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value as DeliveryStatus | '')}
          options={[{ value: '', label: t('common.any') }, ...DELIVERY_STATUSES.map((s) => ({ value: s, label: s }))]}
        />
      </div>
      <PagedTable<WebhookDelivery>
        caption={t('webhooks.deliveriesOf', { url: subscription.url })}
        testId="deliveries"
        refresh={refresh}
        filterKey={status}
        rowKey={(d) => String(d.id)}
        load={async (cursor) => {
          const page = await accountApi.deliveries(id, cursor, status || undefined);
          return { rows: page.data, next: page.next_cursor };
        }}
        columns={[
          { label: t('common.time'), render: (d) => dateTime(d.created_at, locale) },
          { label: t('webhooks.event'), render: (d) => d.event_type },
          { label: t('common.status'), render: (d) => d.status },
          { label: t('webhooks.attempts'), render: (d) => <Attempts delivery={d} /> },
          {
            label: t('common.actions'),
            render: (d) =>
              can.manage(user.role) ? (
                <button
                  type="button"
                  aria-label={t('webhooks.replayNamed', { id: String(d.id) })}
                  onClick={() => replay(d)}
                >
                  {t('webhooks.replay')}
                </button>
              ) : null,
          },
        ]}
      />
    </>
  );
}

/** Webhook subscriptions: add one, rotate its secret (shown once), read deliveries with attempts, replay. */
export function WebhooksPage() {
  const { t } = useI18n();
  const user = useUser();
  const subs = useAsync(() => accountApi.webhooks(), []);
  const [open, setOpen] = useState<string>();
  const [secret, setSecret] = useState<string>();
  const [error, setError] = useState<unknown>();
  const manage = can.manage(user.role);

  const create = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setError(undefined);
    try {
      const named = String(form.get('events'))
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      // The gateway checks each name; none named means every event.
      const events = (named.length ? named : '*') as WebhookEvents;
      const created = await accountApi.createWebhook(String(form.get('url')), events);
      setSecret(created.secret);
      subs.reload();
    } catch (err) {
      setError(err);
    }
  };
  const rotate = async (sub: WebhookSubscription) => {
    setError(undefined);
    try {
      setSecret((await accountApi.rotateSecret(String(sub.id))).secret);
    } catch (err) {
      setError(err);
    }
  };

  const list = subs.data ?? [];
  return (
    <>
      <h1>{t('nav.webhooks')}</h1>
      {manage && (
        <Section title={t('webhooks.add')}>
          <form onSubmit={create} class="inline">
            <Field label={t('webhooks.url')} name="url" type="url" required />
            <Field label={t('webhooks.events')} name="events" hint={t('webhooks.eventsHint')} />
            <button type="submit">{t('webhooks.addButton')}</button>
          </form>
        </Section>
      )}
      <ProblemView error={error ?? subs.error} />
      {secret && (
        <div class="notice" role="status">
          <p>{t('webhooks.secretOnce')}</p>
          <code data-testid="webhook-secret">{secret}</code>
        </div>
      )}
      {subs.loading && <Loading />}
      <table>
        <caption>{t('webhooks.subscriptions')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('webhooks.url')}</th>
            <th scope="col">{t('webhooks.events')}</th>
            <th scope="col">{t('common.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {list.map((s) => (
            <tr key={String(s.id)}>
              <td>{s.url}</td>
              <td>{s.events.join(', ') || t('webhooks.allEvents')}</td>
              <td class="row-actions">
                <button
                  type="button"
                  class="secondary"
                  aria-expanded={open === String(s.id)}
                  onClick={() => setOpen(open === String(s.id) ? undefined : String(s.id))}
                >
                  {t('webhooks.deliveries')}
                </button>
                {manage && (
                  <ConfirmButton
                    label={t('webhooks.rotate')}
                    name={t('webhooks.rotateNamed', { url: s.url })}
                    confirmLabel={t('webhooks.confirmRotate')}
                    onConfirm={() => rotate(s)}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {list
        .filter((s) => String(s.id) === open)
        .map((s) => (
          <Deliveries key={String(s.id)} subscription={s} />
        ))}
    </>
  );
}
