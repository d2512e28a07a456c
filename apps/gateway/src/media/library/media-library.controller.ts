import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { createValidationPipe, mediaTypeOf, problemForStatus, ValidationProblem } from '@app/server';
import { AccountRateLimitGuard } from '../../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../../accounts/authenticated-account';
import { ApiAccountToken, ApiProblems } from '../../openapi/gateway-problems.decorator';
import { CursorPageQueryDto } from '../../paging/cursor-page.dto';
import { CreateMediaFromUrlDto, LibraryMediaDto, LibraryMediaPageDto } from './dto/library-media.dto';
import { LibraryMediaView, MediaLibraryService } from './media-library.service';

const validation = createValidationPipe();

/** `POST /v1/media` (a streamed upload or a URL), `GET /v1/media` and `DELETE /v1/media/{id}` (docs/media.md). */
@ApiTags('media')
@ApiAccountToken()
@Controller('v1/media')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class MediaLibraryController {
  constructor(private readonly library: MediaLibraryService) {}

  @Post()
  @HttpCode(201)
  @ApiConsumes('multipart/form-data', 'application/json')
  @ApiOperation({
    summary:
      'Add a file to the media library: multipart field "file" (streamed), or JSON {"url"}; its media_id sends it on every channel',
  })
  @ApiBody({
    type: CreateMediaFromUrlDto,
    description:
      'JSON {"url"}: the gateway fetches the file; or multipart/form-data with the file as the one part "file", streamed',
  })
  @ApiCreatedResponse({ type: LibraryMediaDto })
  @ApiProblems(400, 413, 415, 422)
  async create(
    @CurrentAccount() account: AuthenticatedAccount,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<LibraryMediaView> {
    const type = mediaTypeOf(request.headers['content-type']);
    if (type === 'application/json') {
      const dto = (await validation.transform(body, {
        type: 'body',
        metatype: CreateMediaFromUrlDto,
      })) as CreateMediaFromUrlDto;
      return this.library.create(account, { kind: 'url', url: dto.url, fileName: dto.file_name ?? null });
    }
    if (type !== 'multipart/form-data' || !request.isMultipart())
      throw problemForStatus(415, 'A media upload is multipart/form-data (field "file") or JSON {"url"}.');
    const part = await request
      .file({ limits: { fileSize: this.library.maxBytes + 1, files: 1, fields: 0, parts: 2 } })
      .catch(() => undefined);
    if (!part || part.fieldname !== 'file') {
      part?.file.resume();
      throw new ValidationProblem([{ field: 'file', message: 'file is required: the file as the form field "file"' }]);
    }
    return this.library.create(account, {
      kind: 'upload',
      body: part.file,
      declaredType: part.mimetype || null,
      fileName: part.filename ? part.filename.slice(0, 240) : null,
    });
  }

  @Get()
  @ApiOperation({ summary: "The account's media library, newest first, paged" })
  @ApiOkResponse({ type: LibraryMediaPageDto })
  @ApiProblems(400)
  list(
    @CurrentAccount() account: AuthenticatedAccount,
    @Query() query: CursorPageQueryDto,
  ): Promise<{ data: LibraryMediaView[]; next_cursor: string | null }> {
    return this.library.list(account, query.cursor ?? null, query.limit === undefined ? 50 : Number(query.limit));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a file of the media library and its channel handles; 409 while a campaign not yet over sends it',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblems(404, 409)
  async delete(@CurrentAccount() account: AuthenticatedAccount, @Param('id') id: string): Promise<void> {
    await this.library.delete(account, id);
  }
}
