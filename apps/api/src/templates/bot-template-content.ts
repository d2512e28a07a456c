import { BOT_TEMPLATE_CHANNELS, contentErrors, GatewaySendChannel, SendContent } from '@app/contracts';
import type { FieldError } from '@app/server';

const PLACEHOLDER = /\{\{\s*(\d+)\s*\}\}/g;
/** Fields of a content that are never filled: its kind and its media address. */
const FIXED = new Set(['type', 'url']);

/** Every text of a content that may hold `{{n}}` placeholders (text, caption, titles…), with its field. */
function textsOf(value: unknown, path: string, out: { field: string; text: string }[] = []) {
  if (typeof value === 'string') out.push({ field: path, text: value });
  else if (Array.isArray(value)) value.forEach((v, i) => textsOf(v, `${path}[${i}]`, out));
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) if (!FIXED.has(key)) textsOf(v, `${path}.${key}`, out);
  }
  return out;
}

/**
 * How many params a bot template's content takes: its placeholders must be `{{1}}` to `{{n}}`,
 * each used at least once (as WhatsApp's rule), or the field errors naming the text that breaks it.
 */
export function botTemplateParams(content: SendContent): number | FieldError[] {
  const used = new Set<number>();
  for (const { text } of textsOf(content, 'content')) {
    for (const m of text.matchAll(PLACEHOLDER)) used.add(Number(m[1]));
  }
  const n = used.size;
  for (let i = 1; i <= n; i++) {
    if (!used.has(i)) {
      const given = [...used].sort((a, b) => a - b).map((p) => `{{${p}}}`);
      return [
        { field: 'content', message: `placeholders must be {{1}} to {{${n}}} without gaps; found ${given.join(', ')}` },
      ];
    }
  }
  return n;
}

/** The channels among Telegram and MAX whose limits a content fits (its placeholders as written). */
export function botTemplateChannels(content: SendContent): GatewaySendChannel[] {
  return BOT_TEMPLATE_CHANNELS.filter((channel) => contentErrors(channel, content).length === 0);
}

/** The content with each `{{n}}` replaced by `params[n - 1]` (its kind and media address untouched). */
export function fillBotTemplate(content: SendContent, params: readonly string[]): SendContent {
  const fill = (value: unknown, key: string | null): unknown => {
    if (typeof value === 'string') {
      return key !== null && FIXED.has(key)
        ? value
        : value.replace(PLACEHOLDER, (_m, i: string) => params[Number(i) - 1] ?? '');
    }
    if (Array.isArray(value)) return value.map((v) => fill(v, null));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, k)]));
    }
    return value;
  };
  return fill(content, null) as SendContent;
}

/**
 * How many params a send of a Meta template takes: its header, body and each URL button number
 * their `{{n}}` on their own, and take their params in that order.
 */
export function placeholdersIn(texts: readonly (string | null | undefined)[]): number {
  let sum = 0;
  for (const text of texts) {
    let max = 0;
    for (const m of (text ?? '').matchAll(PLACEHOLDER)) max = Math.max(max, Number(m[1]));
    sum += max;
  }
  return sum;
}
