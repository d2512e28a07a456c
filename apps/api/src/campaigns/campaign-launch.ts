import type { EntityManager } from 'typeorm';
import { campaignInstant, LoadCampaignRequest } from '@app/contracts';
import { Clock, FieldError, ProblemError, ValidationProblem } from '@app/server';
import { recipientErrors } from './campaign-recipient-input';
import { variantLoadErrors } from './campaign-variants';
import { CampaignRow, CampaignsRepository } from './campaigns.repository';

/** Most recipients in one load page. */
export const LOAD_PAGE_MAX = 5000;

/** Whether `key` launched the campaign (a launch without a key is never taken for another). */
export const launchedBy = (c: CampaignRow, key: string | null | undefined): boolean =>
  typeof key === 'string' && key !== '' && c.launch_key === key;

/** A launch's fields that are not what a launch takes, each named (`prefix` before its name). */
export function launchErrors(req: { total: unknown; launch_key?: unknown }, prefix: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!Number.isInteger(req.total) || (req.total as number) < 0) {
    errors.push({ field: `${prefix}total`, message: 'must be a whole number' });
  }
  const key = req.launch_key;
  if (key !== undefined && key !== null && (typeof key !== 'string' || key.length < 1 || key.length > 255)) {
    errors.push({ field: `${prefix}launch_key`, message: 'must be 1 to 255 characters' });
  }
  return errors;
}

/** Checks a load page's shape before any read: its size, `reset`, its launch and each recipient (20 named at most). */
export function checkLoadPage(req: LoadCampaignRequest): void {
  const page = req.recipients;
  if (!Array.isArray(page) || page.length > LOAD_PAGE_MAX) {
    throw new ValidationProblem([{ field: 'recipients', message: `must be at most ${LOAD_PAGE_MAX} recipients` }]);
  }
  if (typeof req.reset !== 'boolean') throw new ValidationProblem([{ field: 'reset', message: 'must be a boolean' }]);
  const errors = [
    ...(req.launch === undefined || req.launch === null ? [] : launchErrors(req.launch, 'launch.')),
    ...page.flatMap((r, i) => recipientErrors(r, `recipients[${i}]`)),
  ].slice(0, 20);
  if (errors.length) throw new ValidationProblem(errors);
}

/** Checks a load page against its draft: routes on the campaign's channels only (the runner takes them by those), variants it has. */
export function checkPageFits(page: LoadCampaignRequest['recipients'], c: CampaignRow): void {
  const outside = page.findIndex((r) => r.route.some((s) => !c.definition.channels.includes(s.channel)));
  if (outside >= 0) {
    throw new ValidationProblem([
      {
        field: `recipients[${outside}].route`,
        message: `must use only the campaign's channels (${c.definition.channels.join(', ')})`,
      },
    ]);
  }
  const variantErrors = variantLoadErrors(page, c.definition);
  if (variantErrors.length) throw new ValidationProblem(variantErrors);
}

/**
 * Moves the locked draft `c` to its launched state in the caller's transaction, once every recipient
 * is loaded: scheduled for a start in the future, else running (`started`: its event is the caller's).
 */
export async function launchDraft(
  repo: CampaignsRepository,
  clock: Clock,
  em: EntityManager,
  c: CampaignRow,
  appId: number | null,
  req: { total: number; launch_key?: string | null },
): Promise<{ row: CampaignRow; started: boolean }> {
  const loaded = await repo.countRecipients(em, c.id);
  if (loaded !== req.total) {
    throw new ProblemError(
      409,
      'campaign-incomplete',
      'Campaign incomplete',
      `${loaded} of ${req.total} recipients are loaded: load them all, then launch.`,
    );
  }
  const start = campaignInstant(c.definition.schedule?.start_at);
  const later = start !== null && start.getTime() > clock.nowMs();
  const set = {
    template_app_id: appId,
    recipients: loaded,
    pause_reason: null,
    pause_detail: null,
    launch_key: req.launch_key ?? null,
  };
  if (later)
    return { row: await repo.setState(em, c.id, 'scheduled', { ...set, now: ['launched_at'] }), started: false };
  return {
    row: await repo.setState(em, c.id, 'running', { ...set, now: ['launched_at', 'started_at'] }),
    started: true,
  };
}
