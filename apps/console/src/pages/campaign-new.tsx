import { useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { useAsync } from '../components/hooks';
import { PAGE_LIMIT } from '../components/paged-table';
import { Field, ProblemView, Section, Select, TextArea } from '../components/ui';
import { useI18n } from '../i18n';
import { navigate } from '../router';
import { BUTTON_SLOTS, definitionOf, MESSAGE_KINDS, MessageKind } from './campaign-form';
import { CHANNELS } from './channels';

/**
 * The campaign builder: audience, the message (a template and its params, or text, an image of the
 * media library or buttons, with a fallback template for WhatsApp's closed window), channels in
 * failover order, schedule, quiet hours, rate and budget. It saves a draft and opens it, where the
 * estimate comes before launch.
 */
export function CampaignNewPage() {
  const { t } = useI18n();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [kind, setKind] = useState<MessageKind>('template');
  const templates = useAsync(() => ok(api.GET('/v1/templates', { params: { query: { limit: PAGE_LIMIT } } })), []);
  // The library's images, offered by name for an image message (any media id may still be typed).
  const media = useAsync(
    () =>
      kind === 'image'
        ? ok(api.GET('/v1/media', { params: { query: { limit: PAGE_LIMIT } } }))
        : Promise.resolve(undefined),
    [kind],
  );
  const content = kind !== 'template';

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const created = await ok(
        api.POST('/v1/campaigns', { body: definitionOf(new FormData(e.currentTarget as HTMLFormElement)) }),
      );
      navigate(`/console/campaigns/${encodeURIComponent(created.id)}`);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <>
      <h1>{t('campaigns.new')}</h1>
      <form onSubmit={save} class="builder">
        <Section title={t('builder.basics')}>
          <Field label={t('common.name')} name="name" required maxLength={200} />
        </Section>
        <Section title={t('builder.audience')}>
          <Select
            label={t('builder.audienceKind')}
            name="audience_kind"
            options={[
              { value: 'list', label: t('builder.audienceList') },
              { value: 'filter', label: t('builder.audienceLists') },
              { value: 'contact_ids', label: t('builder.audienceIds') },
            ]}
          />
          <Field label={t('builder.audienceValue')} name="audience_value" required hint={t('builder.audienceHint')} />
        </Section>
        <Section title={t('builder.content')}>
          <Select
            label={t('builder.messageKind')}
            name="message_kind"
            value={kind}
            onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value as MessageKind)}
            options={MESSAGE_KINDS.map((k) => ({ value: k, label: t(`builder.kind.${k}`) }))}
          />
          {kind === 'template' && (
            <Field label={t('builder.template')} name="template" required list="template-names" />
          )}
          {(kind === 'text' || kind === 'buttons') && (
            <TextArea label={t('builder.text')} name="content_text" rows={3} required maxLength={4096} />
          )}
          {kind === 'image' && (
            <>
              <Field
                label={t('builder.mediaId')}
                name="content_media_id"
                required
                list="library-images"
                hint={t('builder.mediaHint')}
              />
              <datalist id="library-images">
                {(media.data?.data ?? [])
                  .filter((m) => m.type === 'image')
                  .map((m) => (
                    <option key={m.id} value={m.id} label={m.file_name ?? m.id} />
                  ))}
              </datalist>
              <TextArea label={t('builder.caption')} name="content_caption" rows={2} maxLength={1024} />
            </>
          )}
          {kind === 'buttons' && (
            <fieldset>
              <legend>{t('builder.buttons')}</legend>
              {BUTTON_SLOTS.map((n) => (
                <div class="button-slot" key={n}>
                  <Field
                    label={t('builder.buttonTitle', { n })}
                    name={`button_title_${n}`}
                    required={n === 1}
                    maxLength={20}
                  />
                  <Field label={t('builder.buttonId', { n })} name={`button_id_${n}`} maxLength={64} />
                </div>
              ))}
            </fieldset>
          )}
          {content && (
            <Field
              label={t('builder.fallbackTemplate')}
              name="fallback_template"
              list="template-names"
              hint={t('builder.fallbackHint')}
            />
          )}
          <datalist id="template-names">
            {(templates.data?.data ?? []).map((tpl) => (
              <option key={`${tpl.name}:${tpl.language}`} value={tpl.name} />
            ))}
          </datalist>
          <Field label={t('builder.language')} name="language" placeholder="en" />
          <TextArea label={t('builder.params')} name="params" rows={3} />
          <fieldset>
            <legend>{t('builder.channels')}</legend>
            {CHANNELS.map((c, i) => (
              <label key={c} class="check">
                <input type="checkbox" name={`channel_${c}`} defaultChecked={i === 0} /> {c}
              </label>
            ))}
          </fieldset>
        </Section>
        <Section title={t('builder.when')}>
          <Field label={t('builder.startAt')} name="start_at" type="datetime-local" />
          <Field label={t('builder.endBy')} name="end_by" type="datetime-local" />
          <Field label={t('builder.quietStart')} name="quiet_start" type="time" />
          <Field label={t('builder.quietEnd')} name="quiet_end" type="time" />
          <Field label={t('builder.rate')} name="rate" type="number" min={0.1} max={10000} step="any" />
          <Field label={t('builder.budget')} name="budget" type="number" min={0} step="any" />
        </Section>
        <ProblemView error={error} />
        <button type="submit" disabled={busy}>
          {t('builder.save')}
        </button>
      </form>
    </>
  );
}
