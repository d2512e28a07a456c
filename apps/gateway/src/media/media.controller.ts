import { Controller, Get, Param, Query, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { isUuid } from '@app/contracts';
import { ProblemError } from '@app/server';
import { ApiProblems } from '../openapi/gateway-problems.decorator';
import { PublicRateLimitGuard } from '../public-rate-limit/public-rate-limit.guard';
import { MediaLinkInvalidProblem, MediaLinks } from './media-links';
import { MediaStore } from './media-store';
import { MediaRepository } from './media.repository';

/** A file name as a header may carry it: ASCII in `filename`, the name itself in `filename*`. */
export function contentDisposition(name: string | null): string {
  if (!name) return 'attachment';
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * A customer's file, through the expiring signed link its conversation message carries
 * (docs/conversations.md#media): no token (the signature is the credential), streamed from the
 * media store as an attachment, never sniffed as a page.
 */
@ApiTags('conversations')
@Controller('v1/media')
export class MediaController {
  constructor(
    private readonly links: MediaLinks,
    private readonly media: MediaRepository,
    private readonly store: MediaStore,
  ) {}

  @Get(':id')
  @UseGuards(PublicRateLimitGuard)
  @ApiOperation({ summary: "An inbound message's file, through the signed link of its message's `media.url`" })
  @ApiQuery({ name: 'expires', description: 'Unix seconds: when the link stops working' })
  @ApiQuery({ name: 'sig', description: 'The link signature' })
  @ApiOkResponse({
    description: "The file, as an attachment, with the channel's Content-Type",
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiProblems(403, 404)
  async download(
    @Param('id') id: string,
    @Query('expires') expires: string | undefined,
    @Query('sig') sig: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const row = isUuid(id) ? await this.media.find(id.toLowerCase()) : null;
    // An unknown message is as invalid as a forged link: nothing says whether it exists.
    if (!row) throw new MediaLinkInvalidProblem('The link is not a media link of this gateway.');
    this.links.verify(row.account_id, row.message_id, expires, sig);
    const file = row.status === 'stored' ? await this.store.get(row.message_id) : null;
    if (!file)
      throw new ProblemError(404, 'media-not-stored', 'File not stored', 'The file of this message is not kept.');
    void reply
      .header('Content-Type', row.mime_type ?? 'application/octet-stream')
      .header('Content-Length', String(file.info.size))
      .header('Content-Disposition', contentDisposition(row.file_name))
      .header('X-Content-Type-Options', 'nosniff')
      .header('Cache-Control', 'private, no-store');
    await reply.send(file.body);
  }
}
