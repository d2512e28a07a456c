import { useState } from 'preact/hooks';
import { api, ok, Schemas } from '../api/client';
import { dateTime } from '../components/format';
import { useAsync } from '../components/hooks';
import { ConfirmButton, Field, Loading, ProblemView, Section, Select } from '../components/ui';
import { useI18n } from '../i18n';
import { can } from '../roles';
import { useUser } from '../session-context';
import { ConnectWhatsApp } from './whatsapp-signup';

type Connection = Schemas['ConnectionDto'];

/**
 * Channel connections and their health: connect WhatsApp through its embedded signup, or link a
 * WhatsApp app that finished it by its id; connect a Telegram or MAX bot by its token; disconnect.
 */
export function ConnectionsPage() {
  const { t, locale } = useI18n();
  const user = useUser();
  const list = useAsync(() => ok(api.GET('/v1/connections')), []);
  const [channel, setChannel] = useState<'whatsapp' | 'telegram' | 'max'>('telegram');
  const [error, setError] = useState<unknown>();
  const connect = async (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    setError(undefined);
    try {
      const body =
        channel === 'whatsapp'
          ? { channel, app_id: Number(data.get('app_id')) }
          : { channel, bot_token: String(data.get('bot_token')) };
      await ok(api.POST('/v1/connections', { body }));
      (e.currentTarget as HTMLFormElement | null)?.reset();
      list.reload();
    } catch (err) {
      setError(err);
    }
  };
  const disconnect = async (c: Connection) => {
    setError(undefined);
    try {
      await ok(api.DELETE('/v1/connections/{id}', { params: { path: { id: c.id } } }));
      list.reload();
    } catch (err) {
      setError(err);
    }
  };
  const manage = can.manage(user.role);
  return (
    <>
      <h1>{t('nav.connections')}</h1>
      <ProblemView error={error ?? list.error} />
      {list.loading && <Loading />}
      <table>
        <caption>{t('connections.caption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('common.channel')}</th>
            <th scope="col">{t('connections.health')}</th>
            <th scope="col">{t('connections.what')}</th>
            <th scope="col">{t('common.updated')}</th>
            {manage && <th scope="col">{t('common.actions')}</th>}
          </tr>
        </thead>
        <tbody>
          {(list.data ?? []).map((c) => (
            <tr key={c.id}>
              <td>{c.channel}</td>
              <td>
                <span class={`badge ${c.state}`}>{t(`connections.state.${c.state}`)}</span>
              </td>
              <td>
                {c.app_id !== undefined ? `app ${c.app_id}` : c.bot ? JSON.stringify(c.bot) : (c.base_url ?? '—')}
              </td>
              <td>{dateTime(c.updated_at, locale)}</td>
              {manage && (
                <td>
                  <ConfirmButton
                    label={t('connections.disconnect')}
                    name={t('connections.disconnectNamed', { channel: c.channel })}
                    confirmLabel={t('connections.confirmDisconnect')}
                    onConfirm={() => disconnect(c)}
                  />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {manage && <ConnectWhatsApp onConnected={list.reload} />}
      {manage && (
        <Section title={t('connections.add')}>
          <p class="muted">{t('connections.whatsappHelp')}</p>
          <form onSubmit={connect} class="inline">
            <Select
              label={t('common.channel')}
              value={channel}
              onChange={(e) => setChannel((e.currentTarget as HTMLSelectElement).value as typeof channel)}
              options={[
                { value: 'telegram', label: 'Telegram' },
                { value: 'max', label: 'MAX' },
                { value: 'whatsapp', label: 'WhatsApp' },
              ]}
            />
            {channel === 'whatsapp' ? (
              <Field label={t('connections.appId')} name="app_id" type="number" min={1} required />
            ) : (
              <Field label={t('connections.botToken')} name="bot_token" type="password" autoComplete="off" required />
            )}
            <button type="submit">{t('connections.connect')}</button>
          </form>
        </Section>
      )}
    </>
  );
}
