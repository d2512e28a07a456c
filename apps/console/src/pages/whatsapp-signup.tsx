import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { WhatsAppSignup, whatsappSignups } from '../api/console';
import { Field, ProblemView, Section } from '../components/ui';
import { useI18n } from '../i18n';

/** How often the console asks whether the signup has connected its number. */
const POLL_MS = 2000;

/**
 * "Connect WhatsApp": a new app and its embedded signup, opened in a window of its own; once the
 * business has connected its number there, the app is linked as this account's connection.
 */
export function ConnectWhatsApp({ onConnected }: { onConnected: () => void }) {
  const { t } = useI18n();
  const [signup, setSignup] = useState<WhatsAppSignup>();
  const [error, setError] = useState<unknown>();
  const [connected, setConnected] = useState<string>();

  const start = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    setError(undefined);
    setConnected(undefined);
    // Opened in the click itself (a window opened after an await may be blocked), then sent to the signup.
    const opened = window.open('', '_blank');
    try {
      const started = await whatsappSignups.start(String(new FormData(form).get('name')));
      setSignup(started);
      if (opened) {
        opened.opener = null;
        opened.location.href = started.embed_link_url;
      }
      form.reset();
    } catch (err) {
      opened?.close();
      setError(err);
    }
  };

  useEffect(() => {
    if (!signup) return;
    let stopped = false;
    const timer = setInterval(async () => {
      try {
        const status = await whatsappSignups.status(signup.app_id);
        if (!status.connected || stopped) return;
        stopped = true;
        clearInterval(timer);
        await ok(api.POST('/v1/connections', { body: { channel: 'whatsapp', app_id: signup.app_id } }));
        setSignup(undefined);
        setConnected(status.phone ?? '');
        onConnected();
      } catch (err) {
        stopped = true;
        clearInterval(timer);
        setSignup(undefined);
        setError(err);
      }
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [signup]);

  return (
    <Section title={t('connections.whatsappSignup')}>
      <p class="muted">{t('connections.whatsappSignupHelp')}</p>
      <ProblemView error={error} />
      <form onSubmit={start} class="inline">
        <Field label={t('connections.appName')} name="name" minLength={5} maxLength={150} required />
        <button type="submit" disabled={signup !== undefined}>
          {t('connections.connectWhatsApp')}
        </button>
      </form>
      {signup && (
        <p role="status">
          {t('connections.signupWaiting')}{' '}
          <a href={signup.embed_link_url} target="_blank" rel="noopener noreferrer">
            {t('connections.openSignup')}
          </a>
        </p>
      )}
      {connected !== undefined && (
        <p role="status">{t('connections.whatsappConnected', { phone: connected ? `+${connected}` : '' })}</p>
      )}
    </Section>
  );
}
