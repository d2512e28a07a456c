import { createHash } from 'node:crypto';

const PALETTE = ['#1f7a5c', '#2d6cdf', '#8e44ad', '#c0392b', '#d35400', '#16a085', '#2c3e50', '#7f8c8d'];

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Up to two initials of the app name (letters or digits of its first words). */
export function initialsOf(name: string): string {
  const words = name
    .split(/\s+/)
    .map((w) => Array.from(w).find((ch) => /[\p{L}\p{N}]/u.test(ch)))
    .filter((ch): ch is string => Boolean(ch));
  return (words.slice(0, 2).join('') || '?').toUpperCase();
}

/**
 * The default profile photo: a 640x640 SVG with the app's initials on a colour chosen from its
 * uuid, so that each app's avatar is stable and tells apps apart.
 */
export function renderProfilePhoto(appUuid: string, name: string): string {
  const colour = PALETTE[createHash('sha256').update(appUuid).digest()[0] % PALETTE.length];
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="640" viewBox="0 0 640 640">` +
    `<rect width="640" height="640" fill="${colour}"/>` +
    `<text x="320" y="320" dy=".35em" text-anchor="middle" font-family="Helvetica, Arial, sans-serif" ` +
    `font-size="260" font-weight="600" fill="#ffffff">${escapeXml(initialsOf(name))}</text></svg>`
  );
}
