import { useState } from 'preact/hooks';
import { accountApi, ApiToken } from '../api/console';
import { dateTime } from '../components/format';
import { PagedTable } from '../components/paged-table';
import { ConfirmButton, Field, ProblemView, Section } from '../components/ui';
import { useI18n } from '../i18n';

/** API tokens: create (the token is shown once, here), list, revoke. */
export function TokensPage() {
  const { t, locale } = useI18n();
  const [created, setCreated] = useState<ApiToken>();
  const [error, setError] = useState<unknown>();
  const [refresh, setRefresh] = useState(0);

  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    setError(undefined);
    try {
      setCreated(await accountApi.createToken(String(new FormData(form).get('label'))));
      form.reset();
      setRefresh((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };
  const revoke = async (token: ApiToken) => {
    setError(undefined);
    try {
      await accountApi.revokeToken(token.id);
      if (created?.id === token.id) setCreated(undefined);
      setRefresh((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <h1>{t('nav.tokens')}</h1>
      <Section title={t('tokens.create')}>
        <form onSubmit={create} class="inline">
          <Field label={t('tokens.label')} name="label" required maxLength={100} />
          <button type="submit">{t('tokens.createButton')}</button>
        </form>
        {created?.token && (
          <div class="notice" role="status">
            <p>{t('tokens.shownOnce')}</p>
            <code data-testid="new-token">{created.token}</code>
          </div>
        )}
      </Section>
      <ProblemView error={error} />
      <PagedTable<ApiToken>
        caption={t('tokens.list')}
        refresh={refresh}
        rowKey={(r) => r.id}
        load={async () => ({ rows: await accountApi.tokens() })}
        columns={[
          { label: t('tokens.label'), render: (r) => r.label ?? '—' },
          { label: t('common.created'), render: (r) => dateTime(r.created_at, locale) },
          {
            label: t('common.actions'),
            render: (r) => (
              <ConfirmButton
                label={t('tokens.revoke')}
                name={t('tokens.revokeNamed', { label: r.label ?? r.id })}
                confirmLabel={t('tokens.confirmRevoke', { label: r.label ?? r.id })}
                onConfirm={() => revoke(r)}
              />
            ),
          },
        ]}
      />
    </>
  );
}
