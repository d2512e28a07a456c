import { isURL } from 'class-validator';
import type { FieldError } from '@app/server';
import type { TemplateButtonType, TemplateFlowAction, TemplateType } from '@app/contracts';
import type { StoredButton, StoredTextComponent } from './template.entity';

/** Variables a header or body may carry: a template message fills at most this many per component. */
export const MAX_VARIABLES_PER_COMPONENT = 10;

/** Media a template of each type may show, by file extension of `example_media_url`. */
export const MEDIA_EXTENSIONS: Record<Exclude<TemplateType, 'TEXT'>, Record<string, string>> = {
  IMAGE: { '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.png': 'image/png' },
  VIDEO: { '.3gp': 'video/3gpp', '.mp4': 'video/mp4' },
  DOCUMENT: { '.pdf': 'application/pdf' },
};

const TOKEN = /\{\{([^{}]*)\}\}/g;

/** Literal text and variable numbers of a text, alternating: [text, n, text, n, ..., text]. */
function segments(text: string): { literals: string[]; variables: number[] } {
  const literals: string[] = [];
  const variables: number[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    literals.push(text.slice(last, m.index));
    variables.push(Number(m[1]));
    last = (m.index ?? 0) + m[0].length;
  }
  literals.push(text.slice(last));
  return { literals, variables };
}

/**
 * Checks the `{{n}}` variables of a header or body: written `{{1}}`, `{{2}}`, ... numbered from 1
 * without gaps, separated by text (two adjacent variables could not be told apart in the example),
 * at most MAX_VARIABLES_PER_COMPONENT distinct ones.
 */
export function checkVariables(field: string, text: string): FieldError[] {
  const errors: FieldError[] = [];
  const numbers: number[] = [];
  for (const m of text.matchAll(TOKEN)) {
    if (!/^[1-9][0-9]*$/.test(m[1])) {
      errors.push({
        field,
        message: `${field} has a malformed variable ${m[0]}: write variables as {{1}}, {{2}}, ...`,
      });
    } else {
      numbers.push(Number(m[1]));
    }
  }
  if (errors.length) return errors;
  const distinct = [...new Set(numbers)].sort((a, b) => a - b);
  if (distinct.some((n, i) => n !== i + 1)) {
    errors.push({
      field,
      message: `${field} variables must be numbered from {{1}} without gaps (found ${distinct.map((n) => `{{${n}}}`).join(', ')})`,
    });
  }
  if (distinct.length > MAX_VARIABLES_PER_COMPONENT) {
    errors.push({ field, message: `${field} may have at most ${MAX_VARIABLES_PER_COMPONENT} variables` });
  }
  if (/\}\}\{\{/.test(text)) {
    errors.push({ field, message: `${field} variables must be separated by text` });
  }
  return errors;
}

export function hasVariables(text: string): boolean {
  return segments(text).variables.length > 0;
}

/**
 * The example value of each variable, `{{1}}` first, read from the example text: the example is
 * the text with every variable replaced by a sample value, and each value runs up to the first
 * occurrence of the text that follows its variable. Null when the example does not have that
 * shape. A text without variables takes its example as given and has no values.
 */
export function placeholdersFrom(text: string, example: string): string[] | null {
  const { literals, variables } = segments(text);
  if (variables.length === 0) return [];
  if (!example.startsWith(literals[0])) return null;
  const values = new Map<number, string>();
  let pos = literals[0].length;
  for (let i = 0; i < variables.length; i++) {
    const next = literals[i + 1];
    const isLast = i === variables.length - 1;
    let end: number;
    if (isLast) {
      if (!example.endsWith(next) || example.length - next.length <= pos) return null;
      end = example.length - next.length;
    } else {
      end = example.indexOf(next, pos + 1);
      if (end < 0) return null;
    }
    const value = example.slice(pos, end);
    if (value.trim() === '') return null;
    const seen = values.get(variables[i]);
    if (seen !== undefined && seen !== value) return null;
    values.set(variables[i], value);
    pos = end + next.length;
  }
  return [...values.keys()].sort((a, b) => a - b).map((n) => values.get(n) as string);
}

/** A header or body with its example, checked; errors are reported on `field` and `exampleField`. */
export function textComponent(
  field: string,
  exampleField: string,
  text: string,
  example: string | null | undefined,
  errors: FieldError[],
): StoredTextComponent | null {
  const own = checkVariables(field, text);
  errors.push(...own);
  if (example === undefined || example === null || example === '') {
    errors.push({ field: exampleField, message: `${exampleField} is required when ${field} is set` });
    return null;
  }
  if (own.length) return null;
  const placeholders = placeholdersFrom(text, example);
  if (placeholders === null) {
    errors.push({
      field: exampleField,
      message: `${exampleField} must be the ${field} text with each variable replaced by a sample value`,
    });
    return null;
  }
  return { text, example, placeholders };
}

/** A media URL the channel can fetch for this template type: HTTPS with an allowed file type. */
export function checkMediaUrl(type: Exclude<TemplateType, 'TEXT'>, url: string, field: string): FieldError[] {
  if (!isURL(url, { protocols: ['https'], require_protocol: true, require_tld: true })) {
    return [{ field, message: `${field} must be an https:// URL of a publicly downloadable file` }];
  }
  const path = new URL(url).pathname.toLowerCase();
  const allowed = MEDIA_EXTENSIONS[type];
  if (!Object.keys(allowed).some((ext) => path.endsWith(ext))) {
    const types = [...new Set(Object.values(allowed))].join(', ');
    return [
      { field, message: `${field} must point to a ${types} file (${Object.keys(allowed).join(', ')}) for ${type}` },
    ];
  }
  return [];
}

export interface ButtonInput {
  type: TemplateButtonType;
  text: string;
  url?: string | null;
  example?: string | null;
  phone_number?: string | null;
  flow_id?: string | null;
  flow_action?: TemplateFlowAction | null;
  navigate_screen?: string | null;
}

/** The fields each button type takes besides `type` and `text`. */
const BUTTON_FIELDS: Record<TemplateButtonType, readonly (keyof ButtonInput)[]> = {
  QUICK_REPLY: [],
  URL: ['url', 'example'],
  PHONE_NUMBER: ['phone_number'],
  COPY_CODE: ['example'],
  FLOW: ['flow_id', 'flow_action', 'navigate_screen'],
};
/** The channel takes at most one button of each of these types in a template. */
const ONE_OF: readonly TemplateButtonType[] = ['PHONE_NUMBER', 'COPY_CODE', 'FLOW'];

/** PHONE_NUMBER, COPY_CODE and FLOW buttons as stored; field errors for what they lack. */
function checkFixedButton(b: ButtonInput, at: string, errors: FieldError[]): StoredButton {
  if (b.type === 'PHONE_NUMBER') {
    if (!/^\+?[1-9][0-9]{6,19}$/.test(b.phone_number ?? '')) {
      errors.push({
        field: `${at}.phone_number`,
        message: 'a PHONE_NUMBER button needs a phone_number such as +15550100',
      });
    }
    return { type: 'PHONE_NUMBER', text: b.text, phone_number: b.phone_number ?? '' };
  }
  if (b.type === 'COPY_CODE') {
    if (!/^[A-Za-z0-9]{1,15}$/.test(b.example ?? '')) {
      errors.push({
        field: `${at}.example`,
        message: 'a COPY_CODE button needs an example code of 1 to 15 letters and digits',
      });
    }
    return { type: 'COPY_CODE', text: b.text, example: b.example ?? '' };
  }
  if (!/^[0-9]{1,32}$/.test(b.flow_id ?? '')) {
    errors.push({ field: `${at}.flow_id`, message: 'a FLOW button needs the flow_id of a published Flow' });
  }
  return {
    type: 'FLOW',
    text: b.text,
    flow_id: b.flow_id ?? '',
    flow_action: b.flow_action ?? 'navigate',
    ...(b.navigate_screen ? { navigate_screen: b.navigate_screen } : {}),
  };
}

const URL_VARIABLE = '{{1}}';

/**
 * Buttons as stored: QUICK_REPLY has only a text; URL has an https URL that may end with one
 * `{{1}}`, and then needs an example (the full example URL, or just the value of `{{1}}`).
 */
export function checkButtons(buttons: ButtonInput[], errors: FieldError[]): StoredButton[] {
  for (const type of ONE_OF) {
    const at = buttons.map((b, i) => (b.type === type ? i : -1)).filter((i) => i >= 0);
    if (at.length > 1)
      errors.push({ field: `buttons.${at[1]}.type`, message: `a template has at most one ${type} button` });
  }
  return buttons.map((b, i) => {
    const at = `buttons.${i}`;
    for (const field of ['url', 'example', 'phone_number', 'flow_id', 'flow_action', 'navigate_screen'] as const) {
      if (b[field] !== undefined && b[field] !== null && !BUTTON_FIELDS[b.type].includes(field)) {
        const takers = Object.keys(BUTTON_FIELDS).filter((t) => BUTTON_FIELDS[t as TemplateButtonType].includes(field));
        errors.push({ field: `${at}.${field}`, message: `only ${takers.join(' and ')} buttons have ${field}` });
      }
    }
    if (b.type === 'QUICK_REPLY') return { type: 'QUICK_REPLY', text: b.text };
    if (b.type !== 'URL') return checkFixedButton(b, at, errors);
    const url = b.url ?? '';
    if (url === '') {
      errors.push({ field: `${at}.url`, message: 'a URL button needs a url' });
      return { type: 'URL', text: b.text };
    }
    const withVariable = url.endsWith(URL_VARIABLE);
    const fixed = withVariable ? url.slice(0, -URL_VARIABLE.length) : url;
    if (/\{\{|\}\}/.test(fixed)) {
      errors.push({ field: `${at}.url`, message: 'url may have one variable, {{1}}, and only at its end' });
      return { type: 'URL', text: b.text };
    }
    const probe = withVariable ? `${fixed}x` : fixed;
    if (!isURL(probe, { protocols: ['https'], require_protocol: true, require_tld: true })) {
      errors.push({ field: `${at}.url`, message: 'url must be an https:// URL' });
      return { type: 'URL', text: b.text };
    }
    if (!withVariable) {
      if (b.example !== undefined && b.example !== null && b.example !== '') {
        errors.push({ field: `${at}.example`, message: 'example is only for a url that ends with {{1}}' });
      }
      return { type: 'URL', text: b.text, url, placeholders: [] };
    }
    const example = b.example ?? '';
    const value = example.startsWith(fixed) && example.length > fixed.length ? example.slice(fixed.length) : example;
    if (
      value === '' ||
      /\s/.test(value) ||
      !isURL(`${fixed}${value}`, { protocols: ['https'], require_protocol: true })
    ) {
      errors.push({
        field: `${at}.example`,
        message: 'example is required for a url with {{1}}: the full example URL or the value of {{1}}, without spaces',
      });
      return { type: 'URL', text: b.text, url };
    }
    return { type: 'URL', text: b.text, url, example: `${fixed}${value}`, placeholders: [value] };
  });
}

/** Footers take no variables: the channel gives them no example to moderate. */
export function checkFooter(footer: string, errors: FieldError[]): { text: string } {
  if (/\{\{[^{}]*\}\}/.test(footer)) errors.push({ field: 'footer', message: 'footer may not have variables' });
  return { text: footer };
}
