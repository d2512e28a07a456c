import { useState } from 'preact/hooks';
import { ConsoleUser, consoleApi } from '../api/console';
import { LanguageSwitch } from '../components/language-switch';
import { Field, ProblemView } from '../components/ui';
import { useI18n } from '../i18n';

/** /console/invite#<token>: the invited user chooses a password and is signed in. */
export function InvitePage({ onSignedIn }: { onSignedIn: (user: ConsoleUser) => void }) {
  const { t } = useI18n();
  const [error, setError] = useState<unknown>();
  const token = location.hash.slice(1);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    if (form.get('password') !== form.get('confirm')) {
      setError(new Error(t('invite.mismatch')));
      return;
    }
    try {
      onSignedIn(await consoleApi.acceptInvitation(token, String(form.get('password'))));
    } catch (err) {
      setError(err);
    }
  };
  return (
    <main id="main" class="auth">
      <LanguageSwitch />
      <h1>{t('invite.title')}</h1>
      {token ? (
        <form onSubmit={submit} class="card">
          <Field label={t('signIn.password')} name="password" type="password" autoComplete="new-password" required />
          <Field label={t('invite.confirm')} name="confirm" type="password" autoComplete="new-password" required />
          <ProblemView error={error} />
          <button type="submit">{t('invite.submit')}</button>
        </form>
      ) : (
        <p role="alert">{t('invite.missing')}</p>
      )}
    </main>
  );
}
