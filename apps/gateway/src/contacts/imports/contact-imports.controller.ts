import { Controller, Get, Headers, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { problemForStatus, ValidationProblem } from '@app/server';
import { AccountRateLimitGuard } from '../../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../../accounts/authenticated-account';
import { ContactImportsService, ImportView } from './contact-imports.service';
import { importFormatOf } from './import-body.parser';
import { ApiAccountToken, ApiProblems } from '../../openapi/gateway-problems.decorator';
import { ContactImportDto } from './dto/contact-import.dto';

/** `POST /v1/contacts/imports` (CSV or NDJSON, streamed) and `GET /v1/contacts/imports/{id}`. */
@ApiTags('contacts')
@ApiAccountToken()
@Controller('v1/contacts/imports')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class ContactImportsController {
  constructor(private readonly imports: ContactImportsService) {}

  @Post()
  @HttpCode(202)
  @ApiConsumes('text/csv', 'application/x-ndjson')
  @ApiOperation({ summary: 'Import contacts from a CSV or NDJSON body; 202 with the import once the file is stored' })
  @ApiBody({
    description:
      'CSV with a header row, or one JSON object a line: external_id, name, whatsapp, telegram, max, time_zone, ' +
      'language, lists, attr.<key>, consent.<purpose> (docs/contacts.md#imports)',
    schema: { type: 'string' },
  })
  @ApiAcceptedResponse({ type: ContactImportDto, description: 'The import, state processing' })
  @ApiProblems(400, 413, 415)
  start(
    @CurrentAccount() account: AuthenticatedAccount,
    @Headers('content-type') contentType: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<ImportView> {
    const format = importFormatOf(contentType);
    if (!format || !(request.body instanceof Readable)) {
      throw problemForStatus(415, 'An import is a text/csv or application/x-ndjson body.');
    }
    const length = Number(request.headers['content-length']);
    return this.imports.start(account, format, request.body, Number.isFinite(length) ? length : undefined);
  }

  @Get(':id')
  @ApiOperation({
    summary: "An import's state, counts and rejected rows (row number, field, reason), paged by after_row",
  })
  @ApiQuery({
    name: 'after_row',
    required: false,
    description: 'The next_after_row of the previous page: rejections after this row',
    schema: { type: 'string', pattern: '^(0|[1-9][0-9]{0,8})$' },
  })
  @ApiOkResponse({ type: ContactImportDto })
  @ApiProblems(400, 403, 404)
  get(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('id') id: string,
    @Query('after_row') afterRow?: string,
  ): Promise<ImportView> {
    if (afterRow !== undefined && !/^(0|[1-9][0-9]{0,8})$/.test(afterRow)) {
      throw new ValidationProblem([{ field: 'after_row', message: 'after_row must be a row number' }]);
    }
    return this.imports.view(account, id, afterRow === undefined ? 0 : Number(afterRow));
  }
}
