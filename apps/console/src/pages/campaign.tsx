import { useState } from 'preact/hooks';
import { api, asJson, ok, Schemas } from '../api/client';
import { download } from '../api/http';
import { dateTime, num } from '../components/format';
import { useAsync, usePoll } from '../components/hooks';
import { PAGE_LIMIT, PagedTable } from '../components/paged-table';
import { Facts, Loading, Progress, ProblemView, RecordLoadFailure, Section } from '../components/ui';
import { useI18n } from '../i18n';
import { can } from '../roles';
import { Link } from '../router';
import type { PageProps } from '../routes';
import { useUser } from '../session-context';
import { fallbackSummary, messageSummary } from './campaign-form';
import { CHANNELS } from './channels';

type Campaign = Schemas['CampaignDto'];
type Estimate = Schemas['CampaignEstimateDto'];
type Recipient = Schemas['CampaignRecipientDto'];
const STATUSES = ['pending', 'skipped', 'queued', 'sent', 'delivered', 'read', 'failed'] as const;
const LIVE: Campaign['state'][] = ['scheduled', 'running', 'paused'];

function EstimateView({ estimate }: { estimate: Estimate }) {
  const { t, locale } = useI18n();
  return (
    <div data-testid="estimate">
      <Facts
        items={[
          [t('estimate.audience'), estimate.audience],
          [t('campaigns.recipients'), estimate.recipients],
          [t('estimate.cost'), `${num(estimate.cost.total, locale, 2)} ${estimate.cost.currency}`],
          [t('estimate.balance'), `${num(estimate.cost.balance, locale, 2)} ${estimate.cost.currency}`],
          [t('estimate.time'), t('estimate.seconds', { n: Math.round(estimate.time.seconds) })],
          [t('estimate.finish'), dateTime(estimate.time.finish_at, locale)],
          [t('estimate.limitedBy'), estimate.time.limited_by],
          [
            t('estimate.excluded'),
            Object.entries(estimate.excluded)
              .map(([k, v]) => `${k}: ${v}`)
              .join(', '),
          ],
        ]}
      />
      {estimate.warnings.length > 0 && (
        <ul class="warnings">
          {estimate.warnings.map((w, i) => (
            <li key={i}>{w.detail}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * One campaign: its definition, live progress by status and channel while it runs, the estimate and
 * launch for a draft, pause/resume/cancel, and its report (paged, or whole as CSV).
 */
export function CampaignPage({ params }: PageProps) {
  const { t, locale } = useI18n();
  const user = useUser();
  const id = params.id;
  const path = { params: { path: { id } } };
  const loaded = useAsync(() => ok(api.GET('/v1/campaigns/{id}', path)), [id]);
  const [live, setLive] = useState<Campaign>();
  const [estimate, setEstimate] = useState<Estimate>();
  const [error, setError] = useState<unknown>();
  const [reportTick, setReportTick] = useState(0);
  const c = live?.id === id ? live : loaded.data;

  usePoll(
    async () => {
      const next = await ok(api.GET('/v1/campaigns/{id}', path));
      const changed = JSON.stringify(next.counts) !== JSON.stringify(c?.counts) || next.state !== c?.state;
      setLive(next);
      if (changed) setReportTick((n) => n + 1);
      return changed;
    },
    !!c && LIVE.includes(c.state),
    [id],
  );

  const act = async (what: 'estimate' | 'launch' | 'pause' | 'resume' | 'cancel') => {
    setError(undefined);
    try {
      if (what === 'estimate') setEstimate(await ok(api.POST('/v1/campaigns/{id}/estimate', path)));
      else if (what === 'launch') setLive(await ok(api.POST('/v1/campaigns/{id}/launch', path)));
      else if (what === 'pause') setLive(await ok(api.POST('/v1/campaigns/{id}/pause', path)));
      else if (what === 'resume') setLive(await ok(api.POST('/v1/campaigns/{id}/resume', path)));
      else setLive(await ok(api.POST('/v1/campaigns/{id}/cancel', path)));
    } catch (err) {
      setError(err);
    }
  };
  const report = async () => {
    setError(undefined);
    try {
      await download(`/v1/campaigns/${encodeURIComponent(id)}/recipients`, {}, `campaign-${id}.csv`);
    } catch (err) {
      setError(err);
    }
  };

  if (!c) {
    if (!loaded.error) return <Loading />;
    return <RecordLoadFailure error={loaded.error} heading={t('campaigns.caption')} back="/console/campaigns" />;
  }
  const manage = can.manage(user.role);
  // Every recipient past pending has been handed to a channel or skipped.
  const done = c.recipients - c.counts.pending;
  return (
    <>
      <h1>{c.name}</h1>
      <p>
        <Link href="/console/campaigns">{t('common.back')}</Link>
      </p>
      <p role="status" data-testid="campaign-state">
        {t(`campaign.state.${c.state}`)}
        {c.pause_reason ? ` (${c.pause_reason})` : ''}
      </p>
      {manage && (
        <div class="actions">
          {c.state === 'draft' && (
            <button type="button" class="secondary" onClick={() => act('estimate')}>
              {t('campaign.estimate')}
            </button>
          )}
          {c.state === 'draft' && (
            <button type="button" onClick={() => act('launch')}>
              {t('campaign.launch')}
            </button>
          )}
          {(c.state === 'running' || c.state === 'scheduled') && (
            <button type="button" onClick={() => act('pause')}>
              {t('campaign.pause')}
            </button>
          )}
          {c.state === 'paused' && (
            <button type="button" onClick={() => act('resume')}>
              {t('campaign.resume')}
            </button>
          )}
          {LIVE.includes(c.state) && (
            <button type="button" class="danger" onClick={() => act('cancel')}>
              {t('campaign.cancel')}
            </button>
          )}
        </div>
      )}
      <ProblemView error={error} />
      {estimate && (
        <Section title={t('campaign.estimate')}>
          <EstimateView estimate={estimate} />
        </Section>
      )}
      <Section title={t('campaign.progress')}>
        <Progress label={t('campaign.progress')} value={done} max={c.recipients} />
        <Facts items={STATUSES.map((s) => [t(`recipient.status.${s}`), c.counts[s]])} />
        <h3>{t('campaign.byChannel')}</h3>
        <Facts items={CHANNELS.map((ch) => [ch, c.channels_used?.[ch] ?? 0])} />
      </Section>
      <Section title={t('campaign.definition')}>
        <Facts
          items={[
            [c.content ? t('builder.messageKind') : t('builder.template'), messageSummary(c)],
            ...(c.content ? [[t('builder.fallback'), fallbackSummary(c)] as [string, string]] : []),
            [t('builder.audience'), JSON.stringify(c.audience)],
            [t('builder.channels'), c.channels.join(' → ')],
            [t('builder.rate'), c.rate ?? '—'],
            [t('builder.budget'), c.budget ?? '—'],
            [t('campaign.spent'), `${num(c.money.spent, locale, 2)} ${c.money.currency}`],
            [t('campaign.held'), `${num(c.money.held, locale, 2)} ${c.money.currency}`],
            [t('common.created'), dateTime(c.created_at, locale)],
            [t('campaign.launched'), dateTime(c.launched_at, locale)],
            [t('campaign.completed'), dateTime(c.completed_at, locale)],
          ]}
        />
      </Section>
      <div class="actions">
        <button type="button" class="secondary" onClick={report}>
          {t('campaign.reportCsv')}
        </button>
      </div>
      <PagedTable<Recipient>
        caption={t('campaign.report')}
        refresh={reportTick}
        rowKey={(r) => String(r.seq)}
        load={async (cursor) => {
          const page = asJson(
            await ok(
              api.GET('/v1/campaigns/{id}/recipients', {
                params: { path: { id }, query: { after: cursor, limit: PAGE_LIMIT } },
              }),
            ),
          );
          return { rows: page.data, next: page.next_after ? String(page.next_after) : undefined };
        }}
        columns={[
          { label: '#', render: (r) => r.seq },
          { label: t('contacts.contact'), render: (r) => r.external_id ?? r.contact_id },
          { label: t('common.status'), render: (r) => t(`recipient.status.${r.status}`) },
          { label: t('common.channel'), render: (r) => r.channel ?? '—' },
          {
            label: t('messages.message'),
            render: (r) =>
              r.message_id ? (
                <Link href={`/console/messages/${encodeURIComponent(r.message_id)}`}>{r.message_id}</Link>
              ) : (
                (r.skip_reason ?? '—')
              ),
          },
          { label: t('common.updated'), render: (r) => dateTime(r.updated_at, locale) },
        ]}
      />
    </>
  );
}
