import { Injectable, Logger } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import {
  GraphPage,
  GraphTemplate,
  GraphTemplateCategory,
  GraphTemplateComponent,
  GraphTemplateCreateResponse,
  templateVariables,
  TemplateCategoryUpdateValue,
  TemplateStatusUpdateValue,
  WhatsAppWebhookPayload,
} from '@app/channels';
import { SandboxConfig } from '../config';
import { graphErrors } from './graph-error';
import { SandboxClock } from './sandbox-clock';
import { WebhookDispatcher } from './webhook-dispatcher';

export interface StoredTemplate {
  id: string;
  waba_id: string;
  name: string;
  language: string;
  category: GraphTemplateCategory;
  components: GraphTemplateComponent[];
  status: 'PENDING' | 'APPROVED' | 'REJECTED' | 'PAUSED' | 'DISABLED';
  rejected_reason: string;
  quality_score: 'UNKNOWN' | 'GREEN' | 'YELLOW' | 'RED';
  created_at: number;
}

const CATEGORIES: readonly string[] = ['MARKETING', 'UTILITY', 'AUTHENTICATION'];
const MEDIA_FORMATS: readonly string[] = ['IMAGE', 'VIDEO', 'DOCUMENT'];
/**
 * A template id as Graph gives them: 16 digits from 1 (Graph's string; its webhooks send the same id
 * as a JSON number, which holds it exactly only below 2^53, as Meta's ids are).
 */
export function newTemplateId(): string {
  return String(1_000_000_000_000_000 + randomInt(0, 2 ** 48 - 1));
}

/** The marker a template body carries to be rejected by the emulated moderation. */
export const REJECT_MARKER = 'REJECTME';

/**
 * Message templates of every WABA, kept in memory, with moderation emulated: PENDING, then after
 * SANDBOX_MODERATION_DELAY_MS APPROVED or REJECTED and a signed `message_template_status_update`
 * webhook to the gateway.
 */
@Injectable()
export class SandboxTemplatesService {
  private readonly logger = new Logger('WhatsAppTemplates');
  private readonly templates = new Map<string, StoredTemplate>();
  private readonly moderation = new Map<string, () => void>();

  constructor(
    private readonly config: SandboxConfig,
    private readonly clock: SandboxClock,
    private readonly webhooks: WebhookDispatcher,
  ) {}

  create(wabaId: string, body: unknown): GraphTemplateCreateResponse {
    const b = asObject(body);
    const name = b.name;
    if (typeof name !== 'string' || !name) throw graphErrors.missingParameter('name is required');
    if (!/^[a-z0-9_]{1,512}$/.test(name)) {
      throw graphErrors.invalidParameter('name may contain only lowercase letters, digits and underscores');
    }
    const language = b.language;
    if (typeof language !== 'string' || !language) throw graphErrors.missingParameter('language is required');
    if (!/^[a-z]{2,3}(_[A-Z]{2})?$/.test(language))
      throw graphErrors.invalidParameter(`language ${language} is not supported`);
    const category = parseCategory(b.category);
    const components = parseComponents(b.components);
    if ([...this.templates.values()].some((t) => t.waba_id === wabaId && t.name === name && t.language === language)) {
      throw graphErrors.invalidParameter(`Content in this language already exists: ${name} (${language})`, 2388024);
    }
    const template: StoredTemplate = {
      id: newTemplateId(),
      waba_id: wabaId,
      name,
      language,
      category,
      components,
      status: 'PENDING',
      rejected_reason: 'NONE',
      quality_score: 'UNKNOWN',
      created_at: Math.floor(Date.now() / 1000),
    };
    this.templates.set(template.id, template);
    this.moderate(template);
    return { id: template.id, status: 'PENDING', category: template.category };
  }

  /** Edits resend for moderation; Graph allows it only for approved, rejected or paused templates. */
  edit(id: string, body: unknown): { success: true } {
    const template = this.templates.get(id);
    if (!template) throw graphErrors.objectMissing(id);
    if (!['APPROVED', 'REJECTED', 'PAUSED'].includes(template.status)) {
      throw graphErrors.invalidParameter(`A template in status ${template.status} cannot be edited`, 2388025);
    }
    const b = asObject(body);
    const category = b.category === undefined ? template.category : parseCategory(b.category);
    const components = b.components === undefined ? template.components : parseComponents(b.components);
    Object.assign(template, {
      category,
      components,
      status: 'PENDING',
      rejected_reason: 'NONE',
    });
    this.moderate(template);
    return { success: true };
  }

  /** `hsm_id` deletes that one template; a name alone deletes it in every language. */
  remove(wabaId: string, name: string | undefined, hsmId: string | undefined): { success: true } {
    if (!name && !hsmId) throw graphErrors.missingParameter('name is required');
    const doomed = [...this.templates.values()].filter(
      (t) => t.waba_id === wabaId && (hsmId ? t.id === hsmId : true) && (name ? t.name === name : true),
    );
    if (!doomed.length) {
      throw graphErrors.invalidParameter(`Message template ${name ?? hsmId} was not found`, 2593002);
    }
    for (const t of doomed) {
      this.moderation.get(t.id)?.();
      this.moderation.delete(t.id);
      this.templates.delete(t.id);
    }
    return { success: true };
  }

  list(
    wabaId: string,
    query: { limit?: string; after?: string; name?: string; status?: string },
  ): GraphPage<GraphTemplate> {
    const all = [...this.templates.values()]
      .filter((t) => t.waba_id === wabaId)
      .filter((t) => !query.name || t.name.includes(query.name))
      .filter((t) => !query.status || t.status === query.status.toUpperCase());
    const limit = Math.min(Math.max(Number(query.limit) || 25, 1), 1000);
    const start = query.after ? Number(Buffer.from(query.after, 'base64url').toString()) || 0 : 0;
    const page = all.slice(start, start + limit);
    const end = start + page.length;
    return {
      data: page.map((t) => this.toGraph(t)),
      ...(page.length
        ? {
            paging: {
              cursors: {
                before: Buffer.from(String(start)).toString('base64url'),
                after: Buffer.from(String(end)).toString('base64url'),
              },
              ...(end < all.length
                ? { next: `message_templates?limit=${limit}&after=${Buffer.from(String(end)).toString('base64url')}` }
                : {}),
            },
          }
        : {}),
    };
  }

  all(): StoredTemplate[] {
    return [...this.templates.values()];
  }

  get(id: string): StoredTemplate | undefined {
    return this.templates.get(id);
  }

  /** The template a send names, looked up in the sender's WABA when it is known. */
  findForSend(name: string, language: string, wabaId: string): StoredTemplate | undefined {
    return [...this.templates.values()].find(
      (t) => t.name === name && t.language === language && (wabaId === '0' || t.waba_id === wabaId),
    );
  }

  /** Whether a template of that name exists in any language (tells 132001 apart from a language mismatch). */
  hasName(name: string, wabaId: string): boolean {
    return [...this.templates.values()].some((t) => t.name === name && (wabaId === '0' || t.waba_id === wabaId));
  }

  toGraph(t: StoredTemplate): GraphTemplate {
    return {
      id: t.id,
      name: t.name,
      language: t.language,
      status: t.status,
      category: t.category,
      components: t.components,
      quality_score: { score: t.quality_score, date: t.created_at },
      rejected_reason: t.rejected_reason,
    };
  }

  /**
   * The channel re-categorises a template on its own (Meta: `template_category_update`): sends
   * after it are billed at the new category and Graph lists it. Unless `callback` is false (a
   * missed callback, for the platform's sync to find), the completed change's webhook goes out;
   * the answer tells how its first attempt went. Undefined for a template the sandbox does not hold.
   */
  async recategorize(
    id: string,
    category: GraphTemplateCategory,
    callback = true,
  ): Promise<{ template: StoredTemplate; webhook: { delivered: boolean; status: number | null } | null } | undefined> {
    const template = this.templates.get(id);
    if (!template) return undefined;
    const previous = template.category;
    template.category = category;
    if (!callback) return { template, webhook: null };
    const value: TemplateCategoryUpdateValue = {
      message_template_id: Number(template.id),
      message_template_name: template.name,
      message_template_language: template.language,
      previous_category: previous,
      new_category: category,
    };
    const first = await this.webhooks.start(this.templateWebhook(template, 'template_category_update', value)).first;
    return { template, webhook: { delivered: first.delivered, status: first.status } };
  }

  clear(): void {
    for (const cancel of this.moderation.values()) cancel();
    this.moderation.clear();
    this.templates.clear();
  }

  private moderate(template: StoredTemplate): void {
    this.moderation.get(template.id)?.();
    const cancel = this.clock.schedule(this.config.SANDBOX_MODERATION_DELAY_MS, () => {
      this.moderation.delete(template.id);
      const body = template.components.find((c) => c.type === 'BODY')?.text ?? '';
      const reason = body.includes(REJECT_MARKER)
        ? 'INVALID_FORMAT'
        : template.name.includes('reject')
          ? 'INCORRECT_CATEGORY'
          : null;
      template.status = reason ? 'REJECTED' : 'APPROVED';
      template.rejected_reason = reason ?? 'NONE';
      template.quality_score = reason ? 'UNKNOWN' : 'GREEN';
      const value: TemplateStatusUpdateValue = {
        event: template.status,
        message_template_id: Number(template.id),
        message_template_name: template.name,
        message_template_language: template.language,
        reason: reason ?? 'NONE',
        message_template_category: template.category,
        ...(reason === 'INVALID_FORMAT'
          ? {
              rejection_info: {
                reason: `The template body contains the marker word ${REJECT_MARKER}.`,
                recommendation: 'Remove the marker word and submit the template again.',
              },
            }
          : {}),
      };
      void this.webhooks
        .deliver(this.templateWebhook(template, 'message_template_status_update', value))
        .catch((err: unknown) => this.logger.warn(`template webhook failed: ${String(err)}`));
    });
    this.moderation.set(template.id, cancel);
  }

  /** A webhook about one template of a business account. */
  private templateWebhook(template: StoredTemplate, field: string, value: unknown): WhatsAppWebhookPayload {
    return {
      object: 'whatsapp_business_account',
      entry: [{ id: template.waba_id, time: Math.floor(Date.now() / 1000), changes: [{ field, value }] }],
    };
  }
}

function asObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw graphErrors.invalidParameter('The request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

function parseCategory(value: unknown): GraphTemplateCategory {
  if (typeof value !== 'string' || !CATEGORIES.includes(value.toUpperCase())) {
    throw graphErrors.invalidParameter(`category must be one of ${CATEGORIES.join(', ')}`);
  }
  return value.toUpperCase() as GraphTemplateCategory;
}

function checkNumbering(where: string, text: string): number {
  const vars = templateVariables(text);
  const count = vars.length ? Math.max(...vars) : 0;
  for (let n = 1; n <= count; n++) {
    if (!vars.includes(n))
      throw graphErrors.invalidParameter(`${where}: variables must be numbered from {{1}} without gaps`, 2388293);
  }
  return count;
}

/** Graph's structural rules for template components. */
function parseComponents(value: unknown): GraphTemplateComponent[] {
  if (!Array.isArray(value) || value.length === 0) throw graphErrors.missingParameter('components is required');
  const out: GraphTemplateComponent[] = [];
  for (const raw of value) {
    if (typeof raw !== 'object' || raw === null) throw graphErrors.invalidParameter('each component must be an object');
    const c = raw as Record<string, unknown>;
    const type = typeof c.type === 'string' ? c.type.toUpperCase() : '';
    const example = (c.example ?? {}) as GraphTemplateComponent['example'] & object;
    switch (type) {
      case 'HEADER': {
        const format = typeof c.format === 'string' ? c.format.toUpperCase() : 'TEXT';
        if (format === 'TEXT') {
          if (typeof c.text !== 'string' || !c.text || c.text.length > 60) {
            throw graphErrors.invalidParameter('HEADER text is required and at most 60 characters');
          }
          const vars = checkNumbering('HEADER', c.text);
          if (vars > 1) throw graphErrors.invalidParameter('HEADER may contain at most one variable');
          if (vars && (!Array.isArray(example.header_text) || example.header_text.length !== vars)) {
            throw graphErrors.invalidParameter('Message template is missing examples for HEADER', 2388043);
          }
          out.push({ type: 'HEADER', format: 'TEXT', text: c.text, ...(vars ? { example } : {}) });
        } else if (MEDIA_FORMATS.includes(format)) {
          const handle = example.header_handle?.[0];
          if (typeof handle !== 'string' || !handle) {
            throw graphErrors.invalidParameter(`HEADER ${format} needs example.header_handle`, 2388043);
          }
          out.push({ type: 'HEADER', format: format as 'IMAGE', example: { header_handle: [handle] } });
        } else {
          throw graphErrors.invalidParameter(`HEADER format ${format} is not supported`);
        }
        break;
      }
      case 'BODY': {
        if (typeof c.text !== 'string' || !c.text || c.text.length > 1024) {
          throw graphErrors.invalidParameter('BODY text is required and at most 1024 characters');
        }
        const vars = checkNumbering('BODY', c.text);
        const sample = example.body_text?.[0];
        if (vars && (!Array.isArray(sample) || sample.length !== vars)) {
          throw graphErrors.invalidParameter('Message template is missing examples for BODY', 2388043);
        }
        out.push({ type: 'BODY', text: c.text, ...(vars ? { example: { body_text: [sample as string[]] } } : {}) });
        break;
      }
      case 'FOOTER':
        if (typeof c.text !== 'string' || !c.text || c.text.length > 60 || templateVariables(c.text).length) {
          throw graphErrors.invalidParameter('FOOTER text is required, at most 60 characters, without variables');
        }
        out.push({ type: 'FOOTER', text: c.text });
        break;
      case 'BUTTONS': {
        const buttons = c.buttons;
        if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > 10) {
          throw graphErrors.invalidParameter('BUTTONS must have 1 to 10 buttons');
        }
        out.push({
          type: 'BUTTONS',
          buttons: buttons.map((b: Record<string, unknown>) => {
            const btype = typeof b?.type === 'string' ? b.type.toUpperCase() : '';
            if (btype === 'COPY_CODE') {
              // The channel labels it ("Copy offer code"); the example is the sample code.
              if (typeof b.example !== 'string' || !/^[A-Za-z0-9]{1,15}$/.test(b.example)) {
                throw graphErrors.invalidParameter(
                  'COPY_CODE button needs an example code of 1 to 15 letters and digits',
                );
              }
              return { type: 'COPY_CODE', example: b.example };
            }
            if (typeof b?.text !== 'string' || !b.text || b.text.length > 25) {
              throw graphErrors.invalidParameter('button text is required and at most 25 characters');
            }
            if (btype === 'QUICK_REPLY') return { type: 'QUICK_REPLY', text: b.text };
            if (btype === 'URL') {
              if (typeof b.url !== 'string' || !/^https?:\/\/\S+$/.test(b.url)) {
                throw graphErrors.invalidParameter('URL button needs a valid url');
              }
              const dynamic = templateVariables(b.url).length > 0;
              if (dynamic && (!Array.isArray(b.example) || typeof b.example[0] !== 'string')) {
                throw graphErrors.invalidParameter('Message template is missing examples for URL button', 2388043);
              }
              return {
                type: 'URL',
                text: b.text,
                url: b.url,
                ...(dynamic ? { example: [String((b.example as string[])[0])] } : {}),
              };
            }
            if (btype === 'PHONE_NUMBER') {
              if (typeof b.phone_number !== 'string' || !/^\+?[1-9][0-9]{6,19}$/.test(b.phone_number)) {
                throw graphErrors.invalidParameter('PHONE_NUMBER button needs a phone_number in international format');
              }
              return { type: 'PHONE_NUMBER', text: b.text, phone_number: b.phone_number };
            }
            if (btype === 'FLOW') {
              if (typeof b.flow_id !== 'string' || !/^[0-9]{1,32}$/.test(b.flow_id)) {
                throw graphErrors.invalidParameter('FLOW button needs a flow_id');
              }
              const action = b.flow_action ?? 'navigate';
              if (action !== 'navigate' && action !== 'data_exchange') {
                throw graphErrors.invalidParameter('FLOW button flow_action must be navigate or data_exchange');
              }
              return {
                type: 'FLOW',
                text: b.text,
                flow_id: b.flow_id,
                flow_action: action,
                ...(typeof b.navigate_screen === 'string' ? { navigate_screen: b.navigate_screen } : {}),
              };
            }
            throw graphErrors.invalidParameter(`button type ${btype || '(none)'} is not supported`);
          }),
        });
        break;
      }
      default:
        throw graphErrors.invalidParameter(`component type ${String(c.type)} is not supported`);
    }
  }
  const counts = (t: string) => out.filter((c) => c.type === t).length;
  if (counts('BODY') !== 1) throw graphErrors.invalidParameter('a template needs exactly one BODY component');
  if (counts('HEADER') > 1 || counts('FOOTER') > 1 || counts('BUTTONS') > 1) {
    throw graphErrors.invalidParameter('HEADER, FOOTER and BUTTONS may appear at most once');
  }
  return out;
}
