import { contentErrors, GatewaySendChannel, MessageCategory, SendContent } from '@app/contracts';
import { ProblemError, UnprocessableProblem, ValidationProblem } from '@app/server';
import { MessagesService, resolvedSend, SendableTemplate } from '../sending';
import { TemplateChoice, TemplateSources } from '../sending/template-source';
import type { BotTemplateRow } from '../templates/bot-templates.repository';
import type { AppEntity } from '../wa-apps/app.entity';
import type { CampaignRow } from './campaigns.repository';

/**
 * What one recipient's message is sent with: the WhatsApp app's template (null without an app, or
 * on bot channels alone with a bot template) and the account's bot template of the name (null
 * without one), chosen by the one template-source rule (docs/campaigns.md#bot-templates).
 */
export interface CampaignSendable {
  app: AppEntity | null;
  template: SendableTemplate | null;
  bot: BotTemplateRow | null;
  /** A content campaign's content, sent as it is (null for a template campaign). */
  content: SendContent | null;
  /** A content campaign's fallback template, for WhatsApp recipients whose window is closed (null without one). */
  fallback: CampaignSendable | null;
  /**
   * The name and category the frequency rules and consent count: the WhatsApp template's, else the
   * bot template's; a content's is SERVICE (its name the fallback template's, or empty).
   */
  name: string;
  category: MessageCategory;
}

/** The category a message of this sendable is priced and held at on a channel (a SERVICE template as UTILITY). */
export function categoryOn(s: CampaignSendable, channel: GatewaySendChannel): MessageCategory {
  if (s.content) return 'SERVICE';
  const category = channel !== 'whatsapp' && s.bot ? s.bot.category : (s.template?.category ?? s.category);
  return category === 'SERVICE' ? 'UTILITY' : category;
}

const notOnChannel = (name: string, channel: GatewaySendChannel) =>
  new UnprocessableProblem(
    'template-not-on-channel',
    'Template not on a channel',
    `"${name}" is a bot template only: ${channel} needs an APPROVED template of the name from the linked WhatsApp ` +
      `app. Leave ${channel} out of channels, or create the template there.`,
    { channel },
  );

const noChannel = (channels: readonly GatewaySendChannel[]) =>
  new UnprocessableProblem(
    'no-template-source',
    'No templates',
    `The campaign's channels (${channels.join(', ')}) need a linked WhatsApp app: link one with POST /v1/connections ` +
      '{"channel":"whatsapp","app_id":…}, or send on Telegram or MAX with a bot template (POST /v1/templates).',
  );

/**
 * A campaign's template as each channel sends it. The channels are the campaign's, WhatsApp only
 * when the account has a WhatsApp app (`templateAppId`): without one no recipient's route can use
 * it. A template name that is a bot template only, in a campaign sending on WhatsApp, is 422
 * `template-not-on-channel` naming the channel; no template at all, 422 `no-template-source`; the
 * campaign's params must fit the WhatsApp template (and the bot template when it is the only one).
 */
export async function campaignSendable(
  sources: TemplateSources,
  sends: MessagesService,
  c: CampaignRow,
  templateAppId: number | null,
): Promise<CampaignSendable> {
  if (templateAppId !== null && (!Number.isInteger(templateAppId) || templateAppId < 1)) {
    throw new ValidationProblem([{ field: 'template_app_id', message: 'must be an app id or null' }]);
  }
  const d = c.definition;
  const channels = d.channels.filter((ch) => ch !== 'whatsapp' || templateAppId !== null);
  if (!channels.length) throw noChannel(d.channels);
  if (d.content) return contentSendable(sources, sends, c, d.content, templateAppId, channels);
  const name = d.template ?? '';
  const query = {
    accountId: c.account_id,
    userId: c.user_id,
    appId: templateAppId,
    name,
    language: d.language,
  };
  let choice: TemplateChoice;
  try {
    choice = await sources.choose({ ...query, channels });
  } catch (err) {
    if (!(err instanceof ProblemError) || err.status !== 400 || !channels.includes('whatsapp')) throw err;
    // The app has no template of the name: a bot template of it alone does not reach WhatsApp.
    const bot = await sources.botFor(c.account_id, name, d.language, ['telegram']).catch(() => null);
    throw bot ? notOnChannel(name, 'whatsapp') : err;
  }
  const { app, meta, bot } = choice;
  if (meta) resolvedSend(meta, d.params, d.media_url);
  else if (bot && (d.params ?? []).length !== bot.params) {
    throw new ValidationProblem([
      {
        field: 'params',
        message: `template "${bot.name}" takes ${bot.params} params, ${(d.params ?? []).length} given`,
      },
    ]);
  }
  const category = meta?.category ?? bot?.category;
  if (!category) throw noChannel(d.channels);
  return { app, template: meta, bot, content: null, fallback: null, name, category };
}

/**
 * A content campaign's sendable: its content checked on each channel it may go out on (the limits
 * `POST /v1/messages` names), the WhatsApp app it is sent from there, and its fallback template
 * resolved as a template campaign's (on every channel, as its whole route is sent it).
 */
async function contentSendable(
  sources: TemplateSources,
  sends: MessagesService,
  c: CampaignRow,
  content: SendContent,
  templateAppId: number | null,
  channels: readonly GatewaySendChannel[],
): Promise<CampaignSendable> {
  const errors = channels.flatMap((ch) => contentErrors(ch, content));
  if (errors.length) {
    throw new ValidationProblem(errors.filter((e, i) => errors.findIndex((o) => o.field === e.field) === i));
  }
  const app =
    templateAppId !== null && channels.includes('whatsapp')
      ? await sends.sendingApp(String(templateAppId), c.user_id)
      : null;
  const name = c.definition.fallback_template;
  const fallback =
    app && name
      ? await campaignSendable(
          sources,
          sends,
          { ...c, definition: { ...c.definition, content: null, fallback_template: null, template: name } },
          templateAppId,
        )
      : null;
  return { app, template: null, bot: null, content, fallback, name: fallback?.name ?? '', category: 'SERVICE' };
}
