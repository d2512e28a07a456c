import { Injectable } from '@nestjs/common';
import { contentErrors, GatewaySendChannel, MessageKind, outboundOfContent } from '@app/contracts';
import { FieldError, UnprocessableProblem, ValidationProblem } from '@app/server';
import { fillBotTemplate } from '../templates/bot-template-content';
import { BotTemplateRow, BotTemplatesRepository } from '../templates/bot-templates.repository';
import { AppEntity } from '../wa-apps/app.entity';
import { MessagesService, PreparedSend } from './messages.service';
import { SendableTemplatesRepository } from './sendable-templates.repository';
import { chooseTemplate, SendableTemplate } from './template-message';

/** The gateway's field names for what the api's template rules name. */
function gatewayField(field: string): string {
  if (field === 'template.name') return 'template';
  if (field === 'template.language') return 'language';
  if (field === 'template.url') return 'media_url';
  if (field.startsWith('template.components')) return 'params';
  return field;
}

/** The template rules' field errors as the gateway's 400. */
export const refused = (errors: FieldError[]) =>
  new ValidationProblem(errors.map((e) => ({ field: gatewayField(e.field), message: e.message })));

/**
 * What a template send of a name sends on each channel: the WhatsApp app's APPROVED (Meta)
 * template on WhatsApp, the account's bot template on Telegram and MAX (the Meta one, rendered,
 * where the account has no bot template of the name). One name may be both.
 */
export interface TemplateChoice {
  /** The linked WhatsApp app (null when nothing is sent through it). */
  app: AppEntity | null;
  meta: SendableTemplate | null;
  bot: BotTemplateRow | null;
}

const noTemplateSource = (name: string) =>
  new UnprocessableProblem(
    'no-template-source',
    'No templates',
    `The account has no template "${name}": create a bot template with POST /v1/templates, or link a WhatsApp app ` +
      'with POST /v1/connections {"channel":"whatsapp","app_id":…} to send its templates.',
  );

/** The bot template of a name in a language (the only one when none is given); field errors when ambiguous. */
function pickBot(rows: BotTemplateRow[], name: string, language: string | null | undefined): BotTemplateRow | null {
  const named = rows.filter((t) => !language || t.language === language);
  if (named.length > 1) {
    const languages = named.map((t) => t.language).join(', ');
    throw refused([
      { field: 'template.language', message: `template "${name}" exists in ${languages}: give language` },
    ]);
  }
  return named[0] ?? null;
}

/**
 * The one place a template send's templates are chosen, for gateway sends, failover routes and
 * campaigns alike (docs/gateway.md#templates).
 */
@Injectable()
export class TemplateSources {
  constructor(
    private readonly sendable: SendableTemplatesRepository,
    private readonly bots: BotTemplatesRepository,
    private readonly sends: MessagesService,
  ) {}

  /**
   * The templates of `name` for a send on these channels: a bot template covers Telegram and MAX;
   * the Meta template is needed on WhatsApp and on a bot channel without one. 422
   * `no-template-source` when neither can be had; 400 on `template` or `language` otherwise.
   */
  async choose(q: {
    accountId: string;
    userId: string;
    appId: number | null;
    name: string;
    language?: string | null;
    channels: readonly GatewaySendChannel[];
  }): Promise<TemplateChoice> {
    const onBot = q.channels.some((c) => c !== 'whatsapp');
    const bot = await this.botFor(q.accountId, q.name, q.language, q.channels);
    if (!q.channels.includes('whatsapp') && (bot || !onBot)) return { app: null, meta: null, bot };
    if (q.appId === null) throw noTemplateSource(q.name);
    const app = await this.sends.sendingApp(String(q.appId), q.userId);
    const chosen = chooseTemplate(await this.sendable.findTemplates(app.id, q.name), {
      name: q.name,
      language: q.language ?? undefined,
    });
    if (Array.isArray(chosen)) throw refused(chosen);
    return { app, meta: chosen, bot };
  }

  /** The account's bot template of a name for a send on these channels (null when none is a bot channel or it has none). */
  async botFor(
    accountId: string,
    name: string,
    language: string | null | undefined,
    channels: readonly GatewaySendChannel[],
  ): Promise<BotTemplateRow | null> {
    if (!channels.some((c) => c !== 'whatsapp')) return null;
    return pickBot(await this.bots.latestOf(accountId, name), name, language);
  }
}

/**
 * A bot template filled with a send's params for one channel: its kind and what is prepared (its
 * category decides the lane and the price). 400 on `params` when their count is not the
 * template's or the filled text outgrows the channel.
 */
export function botTemplateSend(
  bot: BotTemplateRow,
  channel: GatewaySendChannel,
  params: readonly string[] | undefined,
): { kind: MessageKind; prepared: PreparedSend } {
  const given = params ?? [];
  if (given.length !== bot.params) {
    throw new ValidationProblem([
      { field: 'params', message: `template "${bot.name}" takes ${bot.params} params, ${given.length} given` },
    ]);
  }
  const filled = fillBotTemplate(bot.content, given);
  const errors = contentErrors(channel, filled);
  if (errors.length) {
    throw new ValidationProblem(errors.map((e) => ({ field: 'params', message: `with these params, ${e.message}` })));
  }
  const out = outboundOfContent(filled);
  return { kind: out.kind, prepared: { category: bot.category, content: out.content, templateId: null } };
}
