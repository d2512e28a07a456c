import { useState } from 'preact/hooks';
import { ConsoleUser, consoleApi } from '../api/console';
import { LanguageSwitch } from '../components/language-switch';
import { Field, ProblemView } from '../components/ui';
import { useI18n } from '../i18n';

export function SignInPage({ onSignedIn }: { onSignedIn: (user: ConsoleUser) => void }) {
  const { t } = useI18n();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await consoleApi.signIn(String(form.get('email')), String(form.get('password'))));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <main id="main" class="auth">
      <LanguageSwitch />
      <h1>{t('signIn.title')}</h1>
      <form onSubmit={submit} class="card">
        <Field label={t('signIn.email')} name="email" type="email" autoComplete="username" required />
        <Field label={t('signIn.password')} name="password" type="password" autoComplete="current-password" required />
        <ProblemView error={error} />
        <button type="submit" disabled={busy}>
          {t('signIn.submit')}
        </button>
      </form>
    </main>
  );
}
