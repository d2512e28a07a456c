import { COUPON_CODE_MAX_LENGTH } from '@app/contracts';
import type { MessageCategory, RenderedTemplate, TemplateButtonType, TemplateContent } from '@app/contracts';
import type { FieldError } from '@app/server';
import type { TemplateSendDto } from './dto/send-message.dto';

/** What sending needs to know about a stored template. */
export interface SendableTemplate {
  id: number;
  name: string;
  language: string;
  category: MessageCategory;
  type: 'TEXT' | 'IMAGE' | 'VIDEO' | 'DOCUMENT';
  status: string;
  header: { text: string } | null;
  body: { text: string };
  footer: { text: string } | null;
  buttons: { type: TemplateButtonType; text: string; url?: string }[];
}

export interface ResolvedTemplate {
  content: TemplateContent;
  category: MessageCategory;
}

const VARIABLE = /\{\{\s*(\d+)\s*\}\}/g;

/** The number of distinct `{{n}}` variables of a component's text. */
export function countVariables(text: string | null | undefined): number {
  if (!text) return 0;
  return new Set([...text.matchAll(VARIABLE)].map((m) => m[1])).size;
}

/** The text with `{{n}}` replaced by the n-th value. */
export function renderText(text: string, values: string[]): string {
  return text.replace(VARIABLE, (whole, n: string) => values[Number(n) - 1] ?? whole);
}

/**
 * Picks the template a send names: by name (and language when given). Several languages without
 * one given, or none approved, are the sender's to fix: field errors.
 */
export function chooseTemplate(
  candidates: SendableTemplate[],
  request: Pick<TemplateSendDto, 'name' | 'language'>,
): SendableTemplate | FieldError[] {
  const named = candidates.filter(
    (t) => t.name === request.name && (!request.language || t.language === request.language),
  );
  if (named.length === 0) {
    const where = request.language ? ` in language ${request.language}` : '';
    return [{ field: 'template.name', message: `the app has no template named "${request.name}"${where}` }];
  }
  const approved = named.filter((t) => t.status === 'APPROVED');
  if (approved.length === 0) {
    const status = named.map((t) => `${t.language}: ${t.status}`).join(', ');
    return [
      {
        field: 'template.name',
        message: `template "${request.name}" is not approved (${status}); only APPROVED templates can be sent`,
      },
    ];
  }
  if (approved.length > 1) {
    return [
      {
        field: 'template.language',
        message: `template "${request.name}" exists in ${approved.map((t) => t.language).join(', ')}: give template.language`,
      },
    ];
  }
  return approved[0];
}

/**
 * The values a button takes at send: a URL button one per variable of its URL, a COPY_CODE button
 * one (its coupon code); the others none.
 */
export function buttonVariables(b: { type: TemplateButtonType; url?: string }): number {
  return b.type === 'COPY_CODE' ? 1 : b.type === 'URL' ? countVariables(b.url) : 0;
}

/**
 * Checks a send's substitution values against the template (one value per variable, per
 * component; media templates need their media URL) and builds the outbound template content.
 * Buttons given in the request are matched, in order, to the template's buttons that take values
 * (URL buttons with a variable, the COPY_CODE button's coupon code). A FLOW button carries
 * `flowToken` when one is given (the platform's token, returned with the submitted Flow).
 */
export function resolveTemplate(
  template: SendableTemplate,
  request: TemplateSendDto,
  mmLite: { requested: boolean; supported: boolean },
  flowToken?: string | null,
): ResolvedTemplate | FieldError[] {
  const errors: FieldError[] = [];
  const components = request.components ?? {};
  const headerValues = (components.header?.values ?? []).map(String);
  const bodyValues = (components.body?.values ?? []).map(String);

  const expect = (field: string, given: number, wanted: number, what: string) => {
    if (given !== wanted) {
      errors.push({
        field,
        message: `${what} of template "${template.name}" has ${wanted} variable(s); ${given} value(s) given`,
      });
    }
  };
  expect('template.components.header.values', headerValues.length, countVariables(template.header?.text), 'the header');
  expect('template.components.body.values', bodyValues.length, countVariables(template.body.text), 'the body');

  const variableButtons = template.buttons
    .map((b, index) => ({ ...b, index, variables: buttonVariables(b) }))
    .filter((b) => b.variables > 0);
  const givenButtons = components.buttons ?? [];
  if (givenButtons.length !== variableButtons.length) {
    errors.push({
      field: 'template.components.buttons',
      message: `template "${template.name}" has ${variableButtons.length} button(s) with variables; ${givenButtons.length} given`,
    });
  }
  const buttons: NonNullable<TemplateContent['buttons']> = [];
  variableButtons.forEach((b, i) => {
    const given = givenButtons[i];
    if (!given) return;
    if (given.type !== b.type) {
      errors.push({
        field: `template.components.buttons.${i}.type`,
        message: `button ${i + 1} of the template is ${b.type}`,
      });
    }
    expect(`template.components.buttons.${i}.values`, given.values.length, b.variables, `button ${i + 1}`);
    if (b.type === 'COPY_CODE' && given.values.some((v) => String(v).length > COUPON_CODE_MAX_LENGTH)) {
      errors.push({
        field: `template.components.buttons.${i}.values`,
        message: `a coupon code is at most ${COUPON_CODE_MAX_LENGTH} characters`,
      });
    }
    buttons.push({
      index: b.index,
      type: b.type === 'COPY_CODE' ? 'COPY_CODE' : 'URL',
      values: given.values.map(String),
    });
  });
  if (flowToken) {
    template.buttons.forEach((b, index) => {
      if (b.type === 'FLOW') buttons.push({ index, type: 'FLOW', values: [flowToken] });
    });
  }

  const isMedia = template.type !== 'TEXT';
  if (isMedia && !request.url) {
    errors.push({
      field: 'template.url',
      message: `template "${template.name}" is a ${template.type} template: template.url is required`,
    });
  }
  if (!isMedia && request.url) {
    errors.push({
      field: 'template.url',
      message: `template "${template.name}" is a TEXT template: template.url is not allowed`,
    });
  }
  if (errors.length > 0) return errors;

  const liteMode = mmLite.requested && mmLite.supported && template.category === 'MARKETING';
  // The channel files a SERVICE template as UTILITY and bills it so: a business-initiated template
  // is never the free SERVICE conversation, whatever category the business gave it.
  const category = liteMode ? 'MARKETING_LITE' : template.category === 'SERVICE' ? 'UTILITY' : template.category;
  const rendered = [
    template.header ? renderText(template.header.text, headerValues) : null,
    renderText(template.body.text, bodyValues),
    template.footer?.text ?? null,
  ].filter((part): part is string => !!part);
  return {
    category,
    content: {
      name: template.name,
      language: template.language,
      media:
        isMedia && request.url ? { type: template.type as 'IMAGE' | 'VIDEO' | 'DOCUMENT', url: request.url } : null,
      header_values: headerValues,
      body_values: bodyValues,
      buttons,
      rendered_text: rendered.join('\n\n'),
      is_mm_lite: liteMode,
    },
  };
}

/**
 * The template with its values put in, part by part, for channels without native templates: URL
 * buttons with their URL rendered, quick replies reporting their text when pressed.
 */
export function renderTemplate(template: SendableTemplate, content: TemplateContent): RenderedTemplate {
  const buttonValues = new Map((content.buttons ?? []).map((b) => [b.index, b.values]));
  return {
    header: template.header ? renderText(template.header.text, content.header_values ?? []) : null,
    body: renderText(template.body.text, content.body_values ?? []),
    footer: template.footer?.text ?? null,
    // A bot has no call, copy-code or Flow button: those are WhatsApp's alone.
    buttons: template.buttons.flatMap((b, index): RenderedTemplate['buttons'] => {
      if (b.type === 'URL') {
        return [{ type: 'URL', text: b.text, url: renderText(b.url ?? '', buttonValues.get(index) ?? []) }];
      }
      return b.type === 'QUICK_REPLY' ? [{ type: 'QUICK_REPLY', text: b.text, payload: b.text }] : [];
    }),
  };
}

/**
 * A flat list of values (the gateway's `params`) as a template send: the header's variables first,
 * then the body's, then each URL button's, in order; the COPY_CODE button's coupon is
 * `couponCode`. A count that does not match, or a coupon missing or given without a COPY_CODE
 * button, is a field error.
 */
export function templateSendOf(
  template: SendableTemplate,
  params: string[],
  mediaUrl: string | undefined,
  couponCode?: string | null,
): TemplateSendDto | FieldError[] {
  const copyCode = template.buttons.some((b) => b.type === 'COPY_CODE');
  if (copyCode !== !!couponCode) {
    return [
      {
        field: 'coupon_code',
        message: copyCode
          ? `template "${template.name}" has a COPY_CODE button: coupon_code is required`
          : `template "${template.name}" has no COPY_CODE button: coupon_code is not allowed`,
      },
    ];
  }
  const header = countVariables(template.header?.text);
  const body = countVariables(template.body.text);
  const buttons = template.buttons.map((b) => countVariables(b.url)).filter((n) => n > 0);
  const wanted = header + body + buttons.reduce((a, n) => a + n, 0);
  if (params.length !== wanted) {
    return [
      {
        field: 'params',
        message: `template "${template.name}" has ${wanted} variable(s) (header ${header}, body ${body}, buttons ${wanted - header - body}); ${params.length} value(s) given`,
      },
    ];
  }
  let at = header + body;
  const variableButtons = template.buttons.filter((b) => buttonVariables(b) > 0);
  return {
    name: template.name,
    language: template.language,
    url: mediaUrl,
    components: {
      header: { values: params.slice(0, header) },
      body: { values: params.slice(header, header + body) },
      buttons: variableButtons.map((b) => {
        if (b.type === 'COPY_CODE') return { type: b.type, values: [couponCode] };
        const n = countVariables(b.url);
        const values = params.slice(at, at + n);
        at += n;
        return { type: b.type, values };
      }),
    },
  } as TemplateSendDto;
}
