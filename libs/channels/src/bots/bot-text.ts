import { RenderedTemplate } from '@app/contracts';

/** Escapes text for the HTML formatting mode of Telegram and MAX: only `&`, `<` and `>` matter. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * WhatsApp's inline formatting (`*bold*`, `_italic_`, `~strike~`, ``` ```mono``` ```) as HTML, on
 * text that is already escaped, so a template reads the same on every channel. A marker only counts
 * when it opens and closes on the same line around non-space text, as WhatsApp renders it.
 */
function formatting(escaped: string): string {
  return escaped
    .replace(/```([^`\n]+?)```/g, '<code>$1</code>')
    .replace(/(^|[\s(])\*(\S(?:[^*\n]*\S)?)\*(?=$|[\s.,!?:;)])/gm, '$1<b>$2</b>')
    .replace(/(^|[\s(])_(\S(?:[^_\n]*\S)?)_(?=$|[\s.,!?:;)])/gm, '$1<i>$2</i>')
    .replace(/(^|[\s(])~(\S(?:[^~\n]*\S)?)~(?=$|[\s.,!?:;)])/gm, '$1<s>$2</s>');
}

/**
 * One message text for a bot channel from a rendered template: the header in bold, the body, the
 * footer in italics, blank lines between. Everything the business or its customer wrote (template
 * text and the values put into it) is escaped first, so no value can inject markup.
 */
export function templateHtml(rendered: RenderedTemplate): string {
  const parts: string[] = [];
  if (rendered.header) parts.push(`<b>${escapeHtml(rendered.header)}</b>`);
  parts.push(formatting(escapeHtml(rendered.body)));
  if (rendered.footer) parts.push(`<i>${escapeHtml(rendered.footer)}</i>`);
  return parts.join('\n\n');
}

/** A button as both bot channels draw it: a link, or a button whose press comes back as `payload`. */
export type BotButton =
  { kind: 'url'; text: string; url: string } | { kind: 'callback'; text: string; payload: string };

/**
 * The template's buttons, one per row: URL buttons open their (rendered) URL; quick replies come
 * back as a press carrying the button's text, which is what a WhatsApp quick reply reports too.
 */
export function templateButtons(rendered: RenderedTemplate): BotButton[] {
  return rendered.buttons.map((b) =>
    b.type === 'URL' && b.url
      ? { kind: 'url', text: b.text, url: b.url }
      : { kind: 'callback', text: b.text, payload: truncateBytes(b.payload ?? b.text, 64) },
  );
}

/** Callback data is limited in bytes (Telegram: 64); cut on a character boundary. */
export function truncateBytes(value: string, max: number): string {
  let out = value;
  while (Buffer.byteLength(out) > max) out = out.slice(0, -1);
  return out;
}
