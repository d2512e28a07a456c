import { Controller, Get, Headers, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { problemForStatus, ValidationProblem } from '@app/server';
import { AccountRateLimitGuard } from '../../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../../accounts/authenticated-account';
import { ContactImportsService, ImportView } from './contact-imports.service';
import { importFormatOf } from './import-body.parser';
import { ApiAccountToken } from '../../openapi/gateway-problems.decorator';

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
  @ApiAcceptedResponse({ description: 'The import, state processing' })
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
