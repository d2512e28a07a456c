const REDACTED = '<redacted>';

/** Secrets that ride in URLs and headers a channel client may quote in its error messages. */
const PATTERNS: [RegExp, string][] = [
  // Telegram puts the bot token in the path: https://api.telegram.org/bot<id>:<secret>/sendMessage
  [/\/bot[^/\s?#"']+/g, `/bot${REDACTED}`],
  [/\bbot\d+:[A-Za-z0-9_-]+/g, `bot${REDACTED}`],
  // Query parameters that carry credentials (Graph's access_token, MAX's older access_token).
  [/([?&](?:access_token|token|api_key|apikey|key|secret|client_secret|signature)=)[^&\s#"']+/gi, `$1${REDACTED}`],
  // Authorization values, quoted as a header or a JSON field, with or without a scheme.
  [/(authorization["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|bot|oauth)\s+)?[^\s"',}]+/gi, `$1${REDACTED}`],
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`],
];

/**
 * A failure text with the credentials it may quote taken out: bot tokens in URLs, credential query
 * parameters, Authorization values, and any secret the caller knows it used. Every failure a
 * connector builds goes through it, because its text travels far: the message's failure reason,
 * `message.failed` events, stored webhook bodies, the tenant's endpoints, the course platform.
 */
export function redactSecrets(text: string, known: readonly (string | undefined | null)[] = []): string {
  let out = text;
  for (const secret of known) if (secret && secret.length >= 6) out = out.split(secret).join(REDACTED);
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
