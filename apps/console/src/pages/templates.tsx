import { useState } from 'preact/hooks';
import { api, ok, Schemas } from '../api/client';
import { dateTime, text } from '../components/format';
import { PAGE_LIMIT, PagedTable } from '../components/paged-table';
import { Field, ProblemView, Section, Select, TextArea } from '../components/ui';
import { useI18n } from '../i18n';
import { can } from '../roles';
import { useUser } from '../session-context';
import { CHANNELS } from './channels';

type Template = Schemas['GatewayTemplateDto'];

/** The text with {{n}} shown filled by sample params (or left as they are): always plain text. */
function fill(body: string, params: string[]): string {
  return body.replace(/\{\{(\d+)\}\}/g, (m, n: string) => params[Number(n) - 1] || m);
}

/** Channel limits the preview warns about (characters of one text message). */
const LIMITS: Record<(typeof CHANNELS)[number], number> = { whatsapp: 1024, telegram: 4096, max: 4000 };

function Preview({ body, params }: { body: string; params: string[] }) {
  const { t } = useI18n();
  const filled = fill(body, params);
  return (
    <div class="previews">
      {CHANNELS.map((ch) => (
        <figure key={ch} class={`preview ${ch}`}>
          <figcaption>{t('templates.previewOn', { channel: ch })}</figcaption>
          <p class="bubble">{filled || '…'}</p>
          {filled.length > LIMITS[ch] && <p role="alert">{t('templates.tooLong', { n: LIMITS[ch] })}</p>}
        </figure>
      ))}
    </div>
  );
}

/** Templates (WhatsApp's and the bot templates): status, Meta's quality rating, category, channels; create a bot template with a preview per channel. */
export function TemplatesPage() {
  const { t, locale } = useI18n();
  const user = useUser();
  const [body, setBody] = useState('');
  const [sample, setSample] = useState('');
  const [error, setError] = useState<unknown>();
  const [refresh, setRefresh] = useState(0);
  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setError(undefined);
    try {
      await ok(
        api.POST('/v1/templates', {
          body: {
            name: String(data.get('name')),
            language: String(data.get('language')),
            category: String(data.get('category')) as 'MARKETING' | 'UTILITY',
            content: { type: 'text', text: body },
          },
        }),
      );
      form.reset();
      setBody('');
      setRefresh((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <h1>{t('nav.templates')}</h1>
      <PagedTable<Template>
        caption={t('templates.caption')}
        refresh={refresh}
        rowKey={(r) => `${r.source}:${r.name}:${r.language}:${r.version}`}
        load={async (cursor) => {
          const page = await ok(api.GET('/v1/templates', { params: { query: { cursor, limit: PAGE_LIMIT } } }));
          return { rows: page.data, next: page.next_cursor };
        }}
        columns={[
          { label: t('common.name'), render: (r) => r.name },
          { label: t('builder.language'), render: (r) => r.language },
          { label: t('common.status'), render: (r) => r.status },
          {
            label: t('templates.quality'),
            render: (r) =>
              r.quality ? (
                <span class={`quality ${r.quality.toLowerCase()}`}>{t(`templates.quality.${r.quality}`)}</span>
              ) : (
                '—'
              ),
          },
          { label: t('messages.category'), render: (r) => r.category },
          { label: t('builder.channels'), render: (r) => r.channels.join(', ') },
          {
            label: t('templates.content'),
            render: (r) => <span class="clip">{text((r.content as { text?: string })?.text ?? r.content)}</span>,
          },
          { label: t('common.created'), render: (r) => dateTime(r.created_at, locale) },
        ]}
      />
      {can.manage(user.role) && (
        <Section title={t('templates.create')}>
          <form onSubmit={create} class="builder">
            <Field label={t('common.name')} name="name" required pattern="[a-z0-9_]+" maxLength={512} />
            <Field label={t('builder.language')} name="language" required defaultValue="en" />
            <Select
              label={t('messages.category')}
              name="category"
              options={[
                { value: 'UTILITY', label: 'UTILITY' },
                { value: 'MARKETING', label: 'MARKETING' },
              ]}
            />
            <TextArea
              label={t('templates.body')}
              value={body}
              onInput={(e) => setBody((e.currentTarget as HTMLTextAreaElement).value)}
              required
              rows={4}
            />
            <Field
              label={t('templates.sample')}
              value={sample}
              onInput={(e) => setSample((e.currentTarget as HTMLInputElement).value)}
              hint={t('templates.sampleHint')}
            />
            <Preview body={body} params={sample.split(',').map((s) => s.trim())} />
            <ProblemView error={error} />
            <button type="submit">{t('templates.createButton')}</button>
          </form>
        </Section>
      )}
    </>
  );
}
