import { useState } from 'preact/hooks';
import { consoleApi, Role, ROLES } from '../api/console';
import { useAsync } from '../components/hooks';
import { ConfirmButton, Field, Loading, ProblemView, Section, Select } from '../components/ui';
import { useI18n } from '../i18n';
import { useUser } from '../session-context';

/** Console users of the account (owners only): invite with a role, change roles, remove. */
export function UsersPage() {
  const { t } = useI18n();
  const me = useUser();
  const users = useAsync(() => consoleApi.users(), []);
  const [link, setLink] = useState<string>();
  const [error, setError] = useState<unknown>();
  const roleOptions = ROLES.map((r) => ({ value: r, label: t(`role.${r}`) }));
  const run = async (action: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await action();
      users.reload();
    } catch (err) {
      setError(err);
    }
  };
  const invite = (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    return run(async () => {
      const answer = await consoleApi.invite(String(data.get('email')), String(data.get('role')) as Role);
      setLink(new URL(answer.invitation_url, location.origin).href);
    });
  };
  return (
    <>
      <h1>{t('nav.users')}</h1>
      <Section title={t('users.invite')}>
        <form onSubmit={invite} class="inline">
          <Field label={t('signIn.email')} name="email" type="email" required />
          <Select label={t('users.role')} name="role" options={roleOptions} defaultValue="viewer" />
          <button type="submit">{t('users.inviteButton')}</button>
        </form>
        {link && (
          <div class="notice" role="status">
            <p>{t('users.linkOnce')}</p>
            <code data-testid="invitation-url">{link}</code>
          </div>
        )}
      </Section>
      <ProblemView error={error ?? users.error} />
      {users.loading && <Loading />}
      <table>
        <caption>{t('users.caption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('signIn.email')}</th>
            <th scope="col">{t('users.role')}</th>
            <th scope="col">{t('common.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {(users.data ?? []).map((u) => (
            <tr key={u.id}>
              <td>{u.email}</td>
              <td>
                <Select
                  label={t('users.roleOf', { email: u.email })}
                  value={u.role}
                  disabled={u.id === me.id}
                  onChange={(e) =>
                    run(() => consoleApi.setRole(u.id, (e.currentTarget as HTMLSelectElement).value as Role))
                  }
                  options={roleOptions}
                />
              </td>
              <td>
                {u.id !== me.id && (
                  <ConfirmButton
                    label={t('users.remove')}
                    name={t('users.removeNamed', { email: u.email })}
                    confirmLabel={t('users.confirmRemove')}
                    onConfirm={() => run(() => consoleApi.removeUser(u.id))}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
