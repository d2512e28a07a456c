/**
 * The keyboard rules of the emulated bot APIs, as the real ones reject them: MAX's inline keyboard
 * (at most 30 rows, 7 buttons a row and 210 in all; text up to 128 characters; a callback payload
 * up to 1,024 characters; link and request_geo_location buttons) and Telegram's reply keyboard
 * (rows of buttons with text; `request_location` a boolean).
 */
export function maxKeyboardProblem(rows: unknown): string | null {
  if (!Array.isArray(rows) || rows.some((r) => !Array.isArray(r)))
    return 'inline_keyboard buttons must be an array of rows';
  const all = (rows as unknown[][]).flat() as { type?: unknown; text?: unknown; url?: unknown; payload?: unknown }[];
  if (rows.length > 30) return 'An inline keyboard has at most 30 rows';
  if ((rows as unknown[][]).some((r) => r.length > 7)) return 'A keyboard row has at most 7 buttons';
  if (all.length > 210) return 'An inline keyboard has at most 210 buttons';
  for (const btn of all) {
    if (typeof btn?.text !== 'string' || !btn.text) return 'A button needs text';
    if (btn.text.length > 128) return 'Button text must be at most 128 characters';
    if (btn.type === 'link') {
      if (typeof btn.url !== 'string' || !/^https?:\/\/\S+$/.test(btn.url)) return 'A link button needs a valid url';
    } else if (btn.type === 'callback') {
      if (typeof btn.payload !== 'string' || !btn.payload) return 'A callback button needs a payload';
      if (btn.payload.length > 1024) return 'A callback payload must be at most 1024 characters';
    } else if (btn.type !== 'request_geo_location') return `Unsupported button type ${String(btn.type)}`;
  }
  return null;
}

/** Telegram's ReplyKeyboardMarkup: rows of buttons, each with text; null when it is acceptable. */
export function telegramReplyKeyboardProblem(rows: unknown): string | null {
  if (!Array.isArray(rows) || rows.some((r) => !Array.isArray(r)))
    return 'field "keyboard" of the ReplyKeyboardMarkup must be an Array of Arrays';
  for (const b of (rows as unknown[][]).flat() as { text?: unknown; request_location?: unknown }[]) {
    if (typeof b?.text !== 'string' || !b.text) return 'keyboard button text is empty';
    if (b.request_location !== undefined && typeof b.request_location !== 'boolean')
      return 'can\'t parse keyboard button: field "request_location" must be of type Boolean';
  }
  return null;
}
