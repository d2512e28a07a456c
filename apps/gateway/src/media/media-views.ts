import { Injectable } from '@nestjs/common';
import { InboundMedia } from '@app/contracts';
import { MediaLinks } from './media-links';
import { MediaRepository } from './media.repository';

/** The media of an inbound message as answers show it (docs/conversations.md#media). */
export interface MessageMediaView {
  status: 'stored' | 'pending' | 'too_large' | 'failed';
  /** The expiring signed link to the file; null unless stored. */
  url: string | null;
  /** Unix seconds: when `url` stops working; null unless stored. */
  expires_at: number | null;
  mime_type: string | null;
  size: number | null;
  file_name: string | null;
}

/** Adds `media` to the inbound messages of a page that carry a file: its state and, once stored, a fresh signed link. */
@Injectable()
export class MediaViews {
  constructor(
    private readonly media: MediaRepository,
    private readonly links: MediaLinks,
  ) {}

  async attach<T extends { id: string; direction: string; content: unknown }>(
    accountId: string,
    messages: T[],
  ): Promise<(T & { media?: MessageMediaView })[]> {
    const withFile = messages.filter((m) => m.direction === 'in' && mediaOf(m.content));
    const rows = await this.media.ofMessages(withFile.map((m) => m.id));
    return messages.map((m) => {
      const declared = m.direction === 'in' ? mediaOf(m.content) : null;
      if (!declared) return m;
      const row = rows.get(m.id);
      const stored = row?.status === 'stored' ? this.links.sign(accountId, m.id) : null;
      const size = row?.size ?? declared.size;
      return {
        ...m,
        media: {
          status: row?.status ?? 'pending',
          url: stored?.url ?? null,
          expires_at: stored?.expires_at ?? null,
          mime_type: row?.mime_type ?? declared.mime_type ?? null,
          size: size === null || size === undefined ? null : Number(size),
          file_name: row?.file_name ?? declared.file_name ?? null,
        },
      };
    });
  }
}

function mediaOf(content: unknown): InboundMedia | null {
  const media = (content as { media?: InboundMedia } | null)?.media;
  return media && typeof media.handle === 'string' ? media : null;
}
