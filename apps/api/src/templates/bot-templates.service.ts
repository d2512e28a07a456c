import { Injectable } from '@nestjs/common';
import {
  BOT_TEMPLATE_CATEGORIES,
  contentErrors,
  CreateBotTemplateRequest,
  DeleteBotTemplateRequest,
  DeleteBotTemplateResult,
  GatewayTemplateView,
  GetGatewayTemplateRequest,
  GetGatewayTemplateResult,
  ListGatewayTemplatesRequest,
  ListGatewayTemplatesResult,
} from '@app/contracts';
import { Clock, NotFoundProblem, ValidationProblem } from '@app/server';
import { botTemplateChannels, botTemplateParams, placeholdersIn } from './bot-template-content';
import { BotTemplateRow, BotTemplatesRepository, ListedTemplateRow } from './bot-templates.repository';

const NAME = /^[a-z0-9_]{1,512}$/;
const LANGUAGE = /^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})?$/;
/** A concurrent creation of the same name and language took the version: tries before giving up. */
const VERSION_TRIES = 5;

const unix = (d: Date | string) => Math.floor(new Date(d).getTime() / 1000);

/** A bot template's view: its channels are those of Telegram and MAX whose limits its content fits. */
export function botView(t: BotTemplateRow): GatewayTemplateView {
  return {
    name: t.name,
    language: t.language,
    category: t.category,
    source: 'bot',
    channels: botTemplateChannels(t.content),
    version: t.version,
    status: null,
    quality: null,
    content: t.content,
    params: t.params,
    created_at: unix(t.created_at),
  };
}

function listedView(t: ListedTemplateRow): GatewayTemplateView {
  if (t.source === 'bot')
    return botView({ ...t, version: t.version!, content: t.content!, params: t.params! } as BotTemplateRow);
  return {
    name: t.name,
    language: t.language,
    category: t.category,
    source: 'whatsapp',
    // Rendered on the bot channels where no bot template of its name and language takes them.
    channels: t.has_bot ? ['whatsapp'] : ['whatsapp', 'telegram', 'max'],
    version: null,
    status: t.status,
    quality: t.quality,
    content: null,
    params: placeholdersIn([t.header?.text, t.body?.text, ...(t.buttons ?? []).map((b) => b.url)]),
    created_at: unix(t.created_at),
  };
}

const cursorOf = (t: GatewayTemplateView) =>
  Buffer.from(JSON.stringify([t.name, t.language, t.source])).toString('base64url');

function afterOf(cursor: string | undefined): { name: string; language: string; source: string } | null {
  if (!cursor) return null;
  try {
    const [name, language, source] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown[];
    if ([name, language, source].every((v) => typeof v === 'string')) {
      return { name, language, source } as { name: string; language: string; source: string };
    }
  } catch {
    // answered below
  }
  throw new ValidationProblem([{ field: 'cursor', message: 'cursor is not one this list returned' }]);
}

/**
 * The gateway's templates (docs/gateway.md#templates): bot templates, the account's own for
 * Telegram and MAX, each name and language versioned (a repeat is the next version; the older
 * stay readable, the latest is sent), listed beside the linked WhatsApp app's Meta templates.
 */
@Injectable()
export class BotTemplatesService {
  constructor(
    private readonly repo: BotTemplatesRepository,
    private readonly clock: Clock,
  ) {}

  async create(req: CreateBotTemplateRequest): Promise<GatewayTemplateView> {
    const errors = [
      ...(typeof req.name !== 'string' || !NAME.test(req.name)
        ? [{ field: 'name', message: 'name must be 1 to 512 lowercase letters, digits and _' }]
        : []),
      ...(typeof req.language !== 'string' || !LANGUAGE.test(req.language)
        ? [{ field: 'language', message: 'language must be a language code such as en or pt_BR' }]
        : []),
      ...(!(BOT_TEMPLATE_CATEGORIES as readonly string[]).includes(req.category)
        ? [{ field: 'category', message: `category must be one of ${BOT_TEMPLATE_CATEGORIES.join(', ')}` }]
        : []),
    ];
    if (errors.length) throw new ValidationProblem(errors);
    const params = botTemplateParams(req.content);
    if (Array.isArray(params)) throw new ValidationProblem(params);
    if (!botTemplateChannels(req.content).length) throw new ValidationProblem(contentErrors('telegram', req.content));
    for (let i = 0; i < VERSION_TRIES; i++) {
      const row = await this.repo.insertNext({
        accountId: req.account_id,
        userId: req.user_id,
        name: req.name,
        language: req.language,
        category: req.category,
        content: req.content,
        params,
        at: this.clock.now(),
      });
      if (row) return botView(row);
    }
    throw new Error(`bot template ${req.name}: no free version after ${VERSION_TRIES} tries`);
  }

  async list(req: ListGatewayTemplatesRequest): Promise<ListGatewayTemplatesResult> {
    const limit = Math.min(Math.max(1, Math.floor(req.limit) || 50), 100);
    const rows = await this.repo.listPage(req.account_id, req.app_id, afterOf(req.cursor), limit + 1);
    const data = rows.slice(0, limit).map(listedView);
    return { data, next_cursor: rows.length > limit ? cursorOf(data[data.length - 1]) : null };
  }

  /** Every template of a name: the bot templates' latest (or the given) version and the Meta ones; 404 when none. */
  async get(req: GetGatewayTemplateRequest): Promise<GetGatewayTemplateResult> {
    let data: GatewayTemplateView[];
    if (req.version !== undefined) {
      if (!req.language) throw new ValidationProblem([{ field: 'language', message: 'a version goes with language' }]);
      data = (await this.repo.findByName(req.account_id, req.name, req.language, req.version)).map(botView);
    } else {
      const rows = await this.repo.listPage(req.account_id, req.app_id, null, 1000, req.name);
      data = rows.filter((r) => !req.language || r.language === req.language).map(listedView);
    }
    if (!data.length) throw new NotFoundProblem('template');
    return { data };
  }

  async delete(req: DeleteBotTemplateRequest): Promise<DeleteBotTemplateResult> {
    const deleted = await this.repo.deleteByName(req.account_id, req.name, req.language);
    if (!deleted) throw new NotFoundProblem('bot template');
    return { deleted };
  }
}
