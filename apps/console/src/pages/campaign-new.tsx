import { useState } from 'preact/hooks';
import { api, ok, Schemas } from '../api/client';
import { unixOf } from '../components/format';
import { useAsync } from '../components/hooks';
import { PAGE_LIMIT } from '../components/paged-table';
import { Field, ProblemView, Section, Select, TextArea } from '../components/ui';
import { useI18n } from '../i18n';
import { navigate } from '../router';
import { CHANNELS } from './channels';

type Definition = Schemas['CampaignDefinitionDto'];

/** The definition a builder form describes (empty fields left out, so the gateway's defaults apply). */
export function definitionOf(form: FormData): Definition {
  const str = (name: string) => String(form.get(name) ?? '').trim();
  const audienceKind = str('audience_kind');
  const audienceValue = str('audience_value');
  const audience: Definition['audience'] =
    audienceKind === 'contact_ids'
      ? { contact_ids: audienceValue.split(/[\s,]+/).filter(Boolean) }
      : audienceKind === 'filter'
        ? {
            filter: {
              lists: audienceValue
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean),
            },
          }
        : { list: audienceValue };
  const def: Definition = {
    name: str('name'),
    template: str('template'),
    audience,
    channels: CHANNELS.filter((c) => form.get(`channel_${c}`) === 'on'),
  };
  if (str('language')) def.language = str('language');
  const params = str('params')
    .split('\n')
    .map((p) => p.trim())
    .filter(Boolean);
  if (params.length) def.params = params;
  const start = unixOf(str('start_at'));
  const end = unixOf(str('end_by'));
  if (start !== undefined || end !== undefined) def.schedule = { start_at: start, end_by: end };
  if (str('quiet_start') && str('quiet_end')) def.quiet_hours = { start: str('quiet_start'), end: str('quiet_end') };
  if (str('rate')) def.rate = Number(str('rate'));
  if (str('budget')) def.budget = Number(str('budget'));
  return def;
}

/**
 * The campaign builder: audience, template and its params, channels in failover order, schedule,
 * quiet hours, rate and budget. It saves a draft and opens it, where the estimate comes before launch.
 */
export function CampaignNewPage() {
  const { t } = useI18n();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const templates = useAsync(() => ok(api.GET('/v1/templates', { params: { query: { limit: PAGE_LIMIT } } })), []);

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
          <Field label={t('builder.template')} name="template" required list="template-names" />
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
