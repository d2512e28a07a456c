import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import {
  channelCategoryOf,
  ChannelTemplateCategory,
  EventEnvelope,
  isTemplateCategory,
  TemplateCategory,
  TemplateQuality,
  TemplateStatus,
  TemplateStatusData,
  TemplateSubmission,
  TemplateType,
  TemplateUpdatedData,
  WhatsAppConnection,
} from '@app/contracts';
import { Clock, FieldError, NotFoundProblem, ProblemError, UnprocessableProblem, ValidationProblem } from '@app/server';
import { AppEntity } from '../wa-apps/app.entity';
import { AppEvents } from '../wa-apps/app-events';
import { WaAppsRepository } from '../wa-apps/wa-apps.repository';
import { unixTime } from '../wa-apps/wa-apps.service';
import { EventHandlersRegistry } from '../events';
import { CreateTemplateDto } from './dto/create-template.dto';
import { TemplateDto, TemplateTextComponentDto } from './dto/template.dto';
import { UpdateTemplateDto } from './dto/update-template.dto';
import { FailureDetails, StoredButton, StoredTextComponent, TemplateEntity } from './template.entity';
import { checkButtons, checkFooter, checkMediaUrl, textComponent } from './template-rules';
import { DuplicateTemplateError, StoredTemplateContent, TemplatesRepository } from './templates.repository';
import { ChannelRejectedError, WhatsAppTemplatesChannel } from './whatsapp-templates.channel';

/** Statuses from which an edit may be submitted (docs/api.md, Moderation, edits and deletion). */
const EDITABLE: readonly TemplateStatus[] = ['APPROVED', 'REJECTED', 'PAUSED'];

/** A status change reported by the channel, by callback or by sync. */
export interface ChannelTemplateState {
  status: TemplateStatus;
  quality?: TemplateQuality | null;
  reason?: { code: string; message: string } | null;
}

/** A callback for a template not stored yet is retried for this long (its creation may be in flight). */
const UNKNOWN_TEMPLATE_RETRY_SECONDS = 60;

function textView(c: StoredTextComponent): TemplateTextComponentDto {
  return { text: c.text, sample_text: c.example, placeholders: c.placeholders };
}

export function toTemplateDto(t: TemplateEntity): TemplateDto {
  return {
    id: t.id,
    wa_id: t.waId,
    name: t.name,
    category: t.category,
    type: t.type,
    language: t.language,
    status: t.status,
    quality: t.quality,
    media_url: t.type === 'TEXT' ? null : t.mediaUrl,
    components: {
      ...(t.header ? { header: textView(t.header) } : {}),
      body: textView(t.body),
      footer: t.footer ? { text: t.footer.text, sample_text: t.footer.text, placeholders: [] } : null,
      buttons: t.buttons.map((b) =>
        b.type === 'URL'
          ? { type: b.type, text: b.text, url: b.url ?? '', placeholders: b.placeholders ?? [] }
          : { type: b.type, text: b.text, ...fixedButtonFields(b) },
      ),
    },
    failure_details: t.failureDetails,
    created_at: unixTime(t.createdAt),
    updated_at: unixTime(t.updatedAt),
  };
}

/** A PHONE_NUMBER, COPY_CODE or FLOW button's own fields, as stored. */
function fixedButtonFields(b: StoredButton): Partial<Omit<StoredButton, 'type' | 'text'>> {
  const fields = [
    'phone_number',
    'flow_id',
    'flow_action',
    'navigate_screen',
    ...(b.type === 'COPY_CODE' ? ['example'] : []),
  ];
  return Object.fromEntries(
    fields.filter((f) => b[f as keyof StoredButton]).map((f) => [f, b[f as keyof StoredButton]]),
  );
}

/** What the channel moderates, in the platform's words. */
function submissionOf(
  t: Pick<TemplateEntity, 'name' | 'language' | 'type' | 'mediaUrl'> & StoredTemplateContent,
): TemplateSubmission {
  return {
    name: t.name,
    language: t.language,
    category: t.category,
    type: t.type,
    header: t.header ? { text: t.header.text, example: t.header.example } : null,
    example_media_url: t.type === 'TEXT' ? null : t.mediaUrl,
    body: { text: t.body.text, example: t.body.example },
    footer: t.footer?.text ?? null,
    buttons: t.buttons.length
      ? t.buttons.map((b) => ({
          type: b.type,
          text: b.text,
          ...(b.url ? { url: b.url } : {}),
          ...(b.example ? { example: b.example } : {}),
          ...(b.type !== 'URL' ? fixedButtonFields(b) : {}),
        }))
      : null,
  };
}

function failureOf(state: ChannelTemplateState): FailureDetails | null {
  if (state.status !== 'REJECTED' && state.status !== 'FAILED') return null;
  return state.reason
    ? { code: state.reason.code, message: state.reason.message }
    : {
        code: state.status,
        message: state.status === 'REJECTED' ? 'The template was rejected in moderation.' : 'The template failed.',
      };
}

function channelRefusal(err: ChannelRejectedError): ProblemError {
  return new ProblemError(
    400,
    'template-rejected-by-channel',
    'Template refused by the channel',
    err.error.message,
    err.error.code ? { channel_code: err.error.code } : {},
  );
}

@Injectable()
export class TemplatesService implements OnModuleInit {
  private readonly logger = new Logger(TemplatesService.name);

  constructor(
    private readonly templates: TemplatesRepository,
    private readonly apps: WaAppsRepository,
    private readonly channel: WhatsAppTemplatesChannel,
    private readonly registry: EventHandlersRegistry,
    private readonly appEvents: AppEvents,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.registry.on('template.status_changed', (event) => this.onStatusChanged(event));
    this.registry.on('template.updated', (event) => this.onCategoryUpdated(event));
  }

  /** The app's connection on the channel; templates live there, so an app without a number has none. */
  private connectionOf(app: AppEntity): WhatsAppConnection {
    if (app.status !== 'ACTIVE' || !app.wabaId || !app.phoneNumberId) {
      throw new ProblemError(
        403,
        'app-not-active',
        'App not active',
        'Connect a WhatsApp number through the app’s embed_link_url first; templates need an ACTIVE app.',
      );
    }
    return { waba_id: app.wabaId, phone_number_id: app.phoneNumberId };
  }

  async create(app: AppEntity, dto: CreateTemplateDto): Promise<TemplateDto> {
    const connection = this.connectionOf(app);
    const type: TemplateType = dto.type ?? 'TEXT';
    const errors: FieldError[] = [];
    let header: StoredTextComponent | null = null;
    let mediaUrl: string | null = null;
    if (type === 'TEXT') {
      if (dto.example_media_url) {
        errors.push({ field: 'example_media_url', message: 'example_media_url is only for IMAGE, VIDEO and DOCUMENT' });
      }
      if (dto.header) {
        header = textComponent('header', 'header_example', dto.header, dto.header_example, errors);
      } else if (dto.header_example) {
        errors.push({ field: 'header_example', message: 'header_example needs a header' });
      }
    } else {
      if (dto.header || dto.header_example) {
        errors.push({
          field: 'header',
          message: `${type} templates show their media as header and take no text header`,
        });
      }
      if (!dto.example_media_url) {
        errors.push({ field: 'example_media_url', message: `example_media_url is required for ${type} templates` });
      } else {
        errors.push(...checkMediaUrl(type, dto.example_media_url, 'example_media_url'));
        mediaUrl = dto.example_media_url;
      }
    }
    const body = textComponent('body', 'body_example', dto.body, dto.body_example, errors);
    const footer = dto.footer ? checkFooter(dto.footer, errors) : null;
    const buttons = dto.buttons ? checkButtons(dto.buttons, errors) : [];
    if (errors.length || !body) throw new ValidationProblem(errors);
    if (await this.templates.exists(app.id, dto.name, dto.language)) {
      throw this.duplicate();
    }

    const content: StoredTemplateContent = { category: dto.category, header, body, footer, buttons };
    let reply;
    try {
      reply = await this.channel.submit({
        connection,
        template: submissionOf({ name: dto.name, language: dto.language, type, mediaUrl, ...content }),
      });
    } catch (err) {
      throw err instanceof ChannelRejectedError ? channelRefusal(err) : err;
    }
    try {
      const saved = await this.templates.insert({
        appId: app.id,
        waId: reply.wa_id,
        name: dto.name,
        language: dto.language,
        type,
        status: reply.status ?? 'PENDING',
        quality: 'UNKNOWN',
        mediaUrl,
        failureDetails: null,
        ...content,
      });
      return toTemplateDto(saved);
    } catch (err) {
      throw err instanceof DuplicateTemplateError ? this.duplicate() : err;
    }
  }

  private duplicate(): ValidationProblem {
    return new ValidationProblem([
      { field: 'name', message: 'the app already has a template with this name and language' },
    ]);
  }

  /** The app's templates, oldest first, read 100 at a time while the answer is written. */
  async *list(app: AppEntity): AsyncGenerator<TemplateDto[]> {
    for await (const batch of this.templates.batchesForApp(app.id, 100)) yield batch.map(toTemplateDto);
  }

  private async find(app: AppEntity, tplId: string): Promise<TemplateEntity> {
    const id = /^[1-9][0-9]{0,9}$/.test(tplId) ? Number(tplId) : null;
    const t = id !== null && id <= 2_147_483_647 ? await this.templates.findForApp(app.id, id) : null;
    if (!t) throw new NotFoundProblem('template');
    return t;
  }

  async update(app: AppEntity, tplId: string, dto: UpdateTemplateDto): Promise<void> {
    const current = await this.find(app, tplId);
    if (!EDITABLE.includes(current.status)) {
      throw new UnprocessableProblem(
        'template-not-editable',
        'Template cannot be edited now',
        `A template can be edited only when APPROVED, REJECTED or PAUSED; this one is ${current.status}.`,
        { template_status: current.status },
      );
    }
    const connection = this.connectionOf(app);
    const errors: FieldError[] = [];

    let header = current.header;
    if (dto.header === '' || dto.header === null) {
      header = null;
      if (dto.header_example) errors.push({ field: 'header_example', message: 'header_example needs a header' });
    } else if (dto.header !== undefined) {
      if (current.type !== 'TEXT') {
        errors.push({ field: 'header', message: `${current.type} templates take no text header` });
      } else {
        header = textComponent('header', 'header_example', dto.header, dto.header_example, errors);
      }
    } else if (dto.header_example) {
      if (current.header) {
        header = textComponent('header', 'header_example', current.header.text, dto.header_example, errors);
      } else {
        errors.push({ field: 'header_example', message: 'header_example needs a header' });
      }
    }
    const body = textComponent('body', 'body_example', dto.body, dto.body_example, errors);
    let footer = current.footer;
    if (dto.footer === '' || dto.footer === null) footer = null;
    else if (dto.footer !== undefined) footer = checkFooter(dto.footer, errors);
    let buttons: StoredButton[] = current.buttons;
    if (dto.buttons === null || (Array.isArray(dto.buttons) && dto.buttons.length === 0)) buttons = [];
    else if (dto.buttons !== undefined) buttons = checkButtons(dto.buttons, errors);
    if (errors.length || !body) throw new ValidationProblem(errors);

    const content: StoredTemplateContent = {
      // An edit may only choose among the creatable categories; a MARKETING_LITE one stays as it is.
      category: dto.category ?? current.category,
      header,
      body,
      footer,
      buttons,
    };
    let reply;
    try {
      reply = await this.channel.update({
        connection,
        wa_id: current.waId,
        template: submissionOf({ ...current, ...content }),
      });
    } catch (err) {
      throw err instanceof ChannelRejectedError ? channelRefusal(err) : err;
    }
    await this.templates.updateContent(current.id, content, reply.status ?? 'PENDING');
  }

  async delete(app: AppEntity, tplId: string): Promise<void> {
    const t = await this.find(app, tplId);
    if (app.wabaId && app.phoneNumberId) {
      try {
        await this.channel.delete({
          connection: { waba_id: app.wabaId, phone_number_id: app.phoneNumberId },
          wa_id: t.waId,
          name: t.name,
        });
      } catch (err) {
        if (!(err instanceof ChannelRejectedError)) throw err;
        // The channel refuses to delete what it does not hold; the platform's copy goes anyway.
        this.logger.warn(
          { templateId: t.id, code: err.error.code },
          `channel refused template deletion: ${err.message}`,
        );
      }
    }
    await this.templates.delete(t.id);
  }

  /**
   * Applies what the channel says about a template (callback or sync): status, quality and
   * failure_details. Idempotent; true when something changed.
   */
  async applyChannelState(t: TemplateEntity, state: ChannelTemplateState): Promise<boolean> {
    const next = {
      status: state.status,
      quality: state.quality ?? t.quality,
      failureDetails: failureOf(state),
    };
    if (
      next.status === t.status &&
      next.quality === t.quality &&
      JSON.stringify(next.failureDetails) === JSON.stringify(t.failureDetails)
    ) {
      return false;
    }
    await this.templates.updateState(t.id, next);
    this.logger.log({ templateId: t.id, from: t.status, to: next.status }, 'template status changed');
    return true;
  }

  /**
   * Follows the channel's category of a template (callback or sync): the template takes it unless
   * it already files there (a SERVICE template is UTILITY on the channel, MARKETING_LITE is
   * MARKETING). Every send after it is priced and laned by the new category. The previous
   * category when it changed, else null.
   */
  async applyChannelCategory(t: TemplateEntity, category: ChannelTemplateCategory): Promise<TemplateCategory | null> {
    if (channelCategoryOf(t.category) === category) return null;
    if (!(await this.templates.moveCategory(t.id, t.category, category))) return null;
    this.logger.log({ templateId: t.id, from: t.category, to: category }, 'template category changed by the channel');
    return t.category;
  }

  /** The app and template a channel callback about a template names; throws to retry a template not stored yet. */
  private async templateOf(
    event: EventEnvelope,
    d: { waba_id: string; wa_id: string; name: string; language: string },
  ): Promise<TemplateEntity | null> {
    const app = await this.apps.findByWabaId(d.waba_id);
    if (!app) return null;
    const t = await this.templates.findByChannelRef(app.id, d.wa_id, d.name, d.language);
    if (!t) {
      // The callback can overtake the insert of a template being created: retry it a while.
      if (this.clock.nowSeconds() - event.created_at < UNKNOWN_TEMPLATE_RETRY_SECONDS) {
        throw new Error(`template ${d.wa_id} of app ${app.id} is not stored (yet)`);
      }
      return null;
    }
    return t;
  }

  /** `template.status_changed`: the app by waba_id, the template by wa_id (or name and language). */
  async onStatusChanged(event: EventEnvelope): Promise<void> {
    const d = event.data as unknown as TemplateStatusData;
    if (!d || typeof d.waba_id !== 'string' || typeof d.status !== 'string') return;
    const t = await this.templateOf(event, d);
    if (t) await this.applyChannelState(t, { status: d.status, quality: d.quality, reason: d.reason });
  }

  /**
   * `template.updated` from the channel's callback (the gateway's): the template takes the new
   * category. Subscribers hear of it from that event itself; the api's own `template.updated`s
   * are those of the sync, which this ignores (the sync applied them).
   */
  async onCategoryUpdated(event: EventEnvelope): Promise<void> {
    const d = event.data as unknown as TemplateUpdatedData;
    if (!d || typeof d.waba_id !== 'string' || !isTemplateCategory(d.category) || d.reason === 'sync') return;
    const t = await this.templateOf(event, d);
    if (t) await this.applyChannelCategory(t, channelCategoryOf(d.category));
  }

  /**
   * Pulls the app's templates from the channel and applies differences (status, quality,
   * category); the number changed. A category changed without a callback the api heard is told
   * to subscribers as `template.updated` (reason `sync`).
   */
  async syncApp(app: AppEntity): Promise<number> {
    const connection = this.connectionOf(app);
    const [remote, local] = await Promise.all([this.channel.list({ connection }), this.templates.listForApp(app.id)]);
    let changed = 0;
    for (const t of local) {
      const r =
        remote.templates.find((x) => x.wa_id === t.waId) ??
        remote.templates.find((x) => x.name === t.name && x.language === t.language);
      if (!r) continue;
      let differs = await this.applyChannelState(t, { status: r.status, quality: r.quality, reason: r.reason });
      const category = channelCategoryOf(r.category);
      const previous = await this.applyChannelCategory(t, category);
      if (previous) {
        differs = true;
        await this.appEvents.templateUpdated(app, {
          waba_id: connection.waba_id,
          wa_id: t.waId,
          name: t.name,
          language: t.language,
          template_id: t.id,
          previous_category: previous,
          category,
          reason: 'sync',
        });
      }
      if (differs) changed++;
    }
    return changed;
  }
}
