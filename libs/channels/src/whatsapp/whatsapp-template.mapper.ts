import {
  channelCategoryOf,
  ChannelTemplate,
  fromChannelCategory,
  TemplateCategory,
  TemplateQuality,
  TemplateStatus,
  TemplateSubmission,
} from '@app/contracts';
import {
  GraphTemplate,
  GraphTemplateButton,
  GraphTemplateCategory,
  GraphTemplateComponent,
  GraphTemplateCreate,
  GraphTemplateEdit,
} from './graph.types';

/** The numbers of the `{{n}}` variables in a text, in order of first appearance. */
export function templateVariables(text: string): number[] {
  const seen: number[] = [];
  for (const m of text.matchAll(/\{\{\s*(\d+)\s*\}\}/g)) {
    const n = Number(m[1]);
    if (!seen.includes(n)) seen.push(n);
  }
  return seen;
}

/**
 * Sample values for each variable of `text`, numbered from 1, taken from the platform's single
 * example string: first the example read as the filled-in text ("Hi John" for "Hi {{1}}"), then
 * as a comma, semicolon or bar separated list with one value per variable, else the whole
 * example for every variable (the channel needs a sample per variable, not a meaningful one).
 */
export function exampleValues(text: string, example: string): string[] {
  const vars = templateVariables(text);
  if (!vars.length) return [];
  const count = Math.max(...vars);
  const order: number[] = [];
  const pattern = text
    .split(/(\{\{\s*\d+\s*\}\})/)
    .map((part) => {
      const v = /^\{\{\s*(\d+)\s*\}\}$/.exec(part);
      if (!v) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      order.push(Number(v[1]));
      return '([\\s\\S]+?)';
    })
    .join('');
  const match = new RegExp(`^${pattern}$`).exec(example);
  if (match) {
    const values = new Array<string>(count).fill(example);
    order.forEach((n, i) => {
      if (values[n - 1] === example) values[n - 1] = match[i + 1];
    });
    return values;
  }
  for (const sep of [/\s*\|\s*/, /\s*;\s*/, /\s*,\s*/]) {
    const parts = example.split(sep).filter((p) => p.length > 0);
    if (parts.length === count) return parts;
  }
  return new Array<string>(count).fill(example);
}

/** The channel has three categories: a service template is a utility one, MM Lite is marketing. */
export function toGraphCategory(category: TemplateCategory): GraphTemplateCategory {
  return channelCategoryOf(category);
}

export function fromGraphCategory(category: string): TemplateCategory {
  return fromChannelCategory(category);
}

/** The template's Graph components: header, body, footer and buttons with their examples. */
export function toGraphComponents(t: TemplateSubmission): GraphTemplateComponent[] {
  const components: GraphTemplateComponent[] = [];
  if (t.type !== 'TEXT') {
    if (!t.example_media_url) throw new Error(`a ${t.type} template needs example_media_url`);
    // The media sample goes where Graph expects an upload handle; the sandbox and BSP uploads accept the URL.
    components.push({ type: 'HEADER', format: t.type, example: { header_handle: [t.example_media_url] } });
  } else if (t.header?.text) {
    const values = exampleValues(t.header.text, t.header.example);
    components.push({
      type: 'HEADER',
      format: 'TEXT',
      text: t.header.text,
      ...(values.length ? { example: { header_text: values } } : {}),
    });
  }
  const bodyValues = exampleValues(t.body.text, t.body.example);
  components.push({
    type: 'BODY',
    text: t.body.text,
    ...(bodyValues.length ? { example: { body_text: [bodyValues] } } : {}),
  });
  if (t.footer) components.push({ type: 'FOOTER', text: t.footer });
  if (t.buttons?.length) {
    components.push({
      type: 'BUTTONS',
      buttons: t.buttons.map((b): GraphTemplateButton => {
        if (b.type === 'QUICK_REPLY') return { type: 'QUICK_REPLY', text: b.text };
        if (b.type === 'PHONE_NUMBER')
          return { type: 'PHONE_NUMBER', text: b.text, phone_number: b.phone_number ?? '' };
        if (b.type === 'COPY_CODE') return { type: 'COPY_CODE', example: b.example ?? '' };
        if (b.type === 'FLOW') {
          return {
            type: 'FLOW',
            text: b.text,
            flow_id: b.flow_id ?? '',
            flow_action: b.flow_action ?? 'navigate',
            ...(b.navigate_screen ? { navigate_screen: b.navigate_screen } : {}),
          };
        }
        const url = b.url ?? '';
        const dynamic = templateVariables(url).length > 0;
        return {
          type: 'URL',
          text: b.text,
          url,
          ...(dynamic ? { example: [b.example ?? url.replace(/\{\{\s*\d+\s*\}\}/g, 'example')] } : {}),
        };
      }),
    });
  }
  return components;
}

export function toGraphTemplateCreate(t: TemplateSubmission): GraphTemplateCreate {
  return {
    name: t.name,
    language: t.language,
    category: toGraphCategory(t.category),
    parameter_format: 'POSITIONAL',
    components: toGraphComponents(t),
  };
}

export function toGraphTemplateEdit(t: TemplateSubmission): GraphTemplateEdit {
  return { category: toGraphCategory(t.category), components: toGraphComponents(t) };
}

/**
 * Graph's template status (and status event) in the platform's five states. Flagged, locked and
 * reinstated templates can still be sent; an appeal is a review; disabled, deleted and over-limit
 * templates can no longer be used.
 */
export function fromGraphTemplateStatus(status: string): TemplateStatus {
  switch (status.toUpperCase()) {
    case 'APPROVED':
    case 'FLAGGED':
    case 'REINSTATED':
    case 'LOCKED':
    case 'UNLOCKED':
    case 'UNARCHIVED':
      return 'APPROVED';
    case 'PENDING':
    case 'IN_APPEAL':
      return 'PENDING';
    case 'REJECTED':
      return 'REJECTED';
    case 'PAUSED':
    case 'ARCHIVED':
      return 'PAUSED';
    default:
      // DISABLED, DELETED, PENDING_DELETION, LIMIT_EXCEEDED and anything newer.
      return 'FAILED';
  }
}

export function fromGraphQuality(score: string | undefined | null): TemplateQuality {
  return score === 'GREEN' || score === 'YELLOW' || score === 'RED' ? score : 'UNKNOWN';
}

const REASONS: Record<string, string> = {
  ABUSIVE_CONTENT: 'The template contains content that violates the channel policies.',
  CATEGORY_NOT_AVAILABLE: 'The category is not available for this account.',
  INCORRECT_CATEGORY: 'The content does not match the category.',
  INVALID_FORMAT: 'The template has an invalid format.',
  PROMOTIONAL: 'The template is promotional but was not submitted as marketing.',
  SCAM: 'The template was identified as a scam.',
  TAG_CONTENT_MISMATCH: 'The content does not match the category.',
};

/**
 * Why a template was rejected, paused or disabled, or null when the channel says NONE. `detail`
 * (a rejection_info reason or other_info description) is preferred over the generic text.
 */
export function fromGraphReason(
  reason: string | null | undefined,
  status: TemplateStatus,
  detail?: string | null,
): { code: string; message: string } | null {
  if (reason && reason !== 'NONE') return { code: reason, message: detail || REASONS[reason] || reason };
  if (status === 'FAILED' || status === 'PAUSED') {
    return detail ? { code: status, message: detail } : null;
  }
  return null;
}

export function fromGraphTemplate(t: GraphTemplate): ChannelTemplate {
  const status = fromGraphTemplateStatus(t.status);
  return {
    wa_id: String(t.id),
    name: t.name,
    language: t.language,
    status,
    category: fromGraphCategory(t.category),
    quality: fromGraphQuality(t.quality_score?.score),
    reason: fromGraphReason(t.rejected_reason, status),
  };
}
