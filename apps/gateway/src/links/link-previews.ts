/**
 * User agents of the fetchers that open a link to show a preview of it (messengers, social
 * networks, search and unfurl bots): they are redirected like anyone, but their fetch is no click.
 */
const PREVIEW_AGENTS =
  /TelegramBot|WhatsApp|facebookexternalhit|Facebot|meta-externalagent|Twitterbot|Slackbot|Slack-ImgProxy|Discordbot|LinkedInBot|SkypeUriPreview|vkShare|Viber|Snapchat|Pinterest|redditbot|Applebot|Googlebot|bingbot|YandexBot|Embedly|Iframely|HeadlessChrome|\bbot\b|crawler|spider/i;

/**
 * Whether a request of a tracked link is a person's click: a GET whose User-Agent is present and
 * is none of the known preview fetchers and bots (a HEAD only asks what is there).
 */
export function isPersonClick(method: string, userAgent: string | undefined): boolean {
  if (method.toUpperCase() !== 'GET') return false;
  if (!userAgent || !userAgent.trim()) return false;
  return !PREVIEW_AGENTS.test(userAgent);
}
