import { useState } from 'preact/hooks';
import { api, ok, Schemas } from '../api/client';
import { dateTime } from '../components/format';
import { useAsync, usePoll } from '../components/hooks';
import { Field, Loading, ProblemView, RecordLoadFailure, Section, Select, TextArea } from '../components/ui';
import { useI18n } from '../i18n';
import { can } from '../roles';
import { Link } from '../router';
import type { PageProps } from '../routes';
import { useUser } from '../session-context';
import { CONVERSATION_STATUSES } from './conversations';

type Message = Schemas['ConversationMessageDto'];
type Conversation = Schemas['ConversationDto'];
/** The most messages of a thread kept on the page; older ones are read again on demand. */
const THREAD_WINDOW = 500;

/** One conversation: its thread (new messages arrive live), reply, assign, status, mark read. */
export function ConversationPage({ params }: PageProps) {
  const { t, locale } = useI18n();
  const user = useUser();
  const id = params.id;
  const path = { params: { path: { id } } };
  const [conv, setConv] = useState<Conversation>();
  const [messages, setMessages] = useState<Message[]>([]);
  const [older, setOlder] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const loaded = useAsync(async () => {
    const [c, page] = await Promise.all([
      ok(api.GET('/v1/conversations/{id}', path)),
      ok(api.GET('/v1/conversations/{id}/messages', path)),
    ]);
    setConv(c);
    setMessages(page.data);
    setOlder(page.next_cursor);
    return c;
  }, [id]);

  usePoll(
    async () => {
      const last = messages[messages.length - 1];
      const query = last ? { after: last.id } : {};
      const page = await ok(api.GET('/v1/conversations/{id}/messages', { params: { path: { id }, query } }));
      if (!page.data.length) return false;
      setMessages((m) => [...m, ...page.data].slice(-THREAD_WINDOW));
      return true;
    },
    !!loaded.data,
    [id, messages.length],
  );

  const run = async (action: () => Promise<Conversation | void>) => {
    setError(undefined);
    try {
      const next = await action();
      if (next) setConv(next);
    } catch (err) {
      setError(err);
    }
  };
  const reply = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const text = String(new FormData(form).get('text'));
    return run(async () => {
      await ok(api.POST('/v1/conversations/{id}/messages', { ...path, body: { type: 'text', text } }));
      form.reset();
    });
  };
  const assign = (e: Event) => {
    e.preventDefault();
    const assignee = String(new FormData(e.currentTarget as HTMLFormElement).get('assignee')).trim();
    return run(() => ok(api.PATCH('/v1/conversations/{id}', { ...path, body: { assignee: assignee || undefined } })));
  };
  const loadOlder = async () => {
    if (!older) return;
    const page = await ok(
      api.GET('/v1/conversations/{id}/messages', { params: { path: { id }, query: { before: older } } }),
    );
    setMessages((m) => [...page.data, ...m].slice(0, THREAD_WINDOW));
    setOlder(page.next_cursor);
  };

  if (!conv) {
    if (!loaded.error) return <Loading />;
    return (
      <RecordLoadFailure error={loaded.error} heading={t('conversations.caption')} back="/console/conversations" />
    );
  }
  const act = can.converse(user.role);
  return (
    <>
      <h1>{conv.contact.name || conv.contact.address}</h1>
      <p>
        <Link href="/console/conversations">{t('common.back')}</Link> · {conv.channel} ·{' '}
        {t(`conversation.status.${conv.status}`)}
      </p>
      <ProblemView error={error} />
      <Section title={t('conversation.thread')}>
        {older && (
          <button type="button" class="secondary" onClick={loadOlder}>
            {t('conversation.older')}
          </button>
        )}
        <ol class="thread" aria-live="polite" data-testid="thread">
          {messages.map((m) => (
            <li key={m.id} class={m.direction === 'in' ? 'in' : 'out'}>
              <span class="muted">
                {m.direction === 'in' ? t('conversation.in') : t('conversation.out')} · {dateTime(m.timestamp, locale)}{' '}
                · {m.status}
              </span>
              <p>{m.content.text ?? `[${m.content.type}]`}</p>
            </li>
          ))}
        </ol>
      </Section>
      {act && (
        <>
          <form onSubmit={reply} class="card">
            <TextArea label={t('conversation.reply')} name="text" rows={3} required maxLength={4096} />
            <button type="submit">{t('conversation.send')}</button>
          </form>
          <div class="actions">
            <form onSubmit={assign} class="inline">
              <Field label={t('conversations.assignee')} name="assignee" defaultValue={conv.assignee ?? ''} />
              <button type="submit">{t('conversation.assign')}</button>
            </form>
            <Select
              label={t('common.status')}
              value={conv.status}
              onChange={(e) => {
                const status = (e.currentTarget as HTMLSelectElement).value as Conversation['status'];
                void run(() => ok(api.PATCH('/v1/conversations/{id}', { ...path, body: { status } })));
              }}
              options={CONVERSATION_STATUSES.map((s) => ({ value: s, label: t(`conversation.status.${s}`) }))}
            />
            <button
              type="button"
              class="secondary"
              onClick={() => run(() => ok(api.POST('/v1/conversations/{id}/read', path)))}
            >
              {t('conversation.markRead')}
            </button>
          </div>
        </>
      )}
    </>
  );
}
