import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { isUuid, unixSeconds } from '@app/contracts';
import { NotFoundProblem } from '@app/server';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../accounts/authenticated-account';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';
import { AccountTokenRow, AccountTokensRepository } from './account-tokens.repository';

/** `POST /v1/tokens`. */
export class CreateTokenDto {
  @ApiPropertyOptional({ example: 'CRM integration', maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  label?: string;
}

/** One of the account's live tokens (its value is shown only when it is created). */
export class AccountTokenDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ type: String, nullable: true })
  label: string | null;

  @ApiProperty({ type: 'integer', description: 'Unix seconds' })
  created_at: number;
}

export class CreatedAccountTokenDto extends AccountTokenDto {
  @ApiProperty({ description: 'The token (gk_…): shown only in this answer' })
  token: string;
}

const view = (t: AccountTokenRow): AccountTokenDto => ({
  id: t.id,
  label: t.label,
  created_at: unixSeconds(t.createdAt),
});

/** The account's own tokens: `GET/POST /v1/tokens`, `DELETE /v1/tokens/{id}` (in the console: owners only). */
@ApiTags('tokens')
@ApiAccountToken()
@Controller('v1/tokens')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class TokensController {
  constructor(private readonly tokens: AccountTokensRepository) {}

  @Get()
  @ApiOperation({ summary: "The account's live tokens (at most 100), newest first; never their values" })
  @ApiOkResponse({ type: [AccountTokenDto] })
  @ApiProblems(403)
  async list(@CurrentAccount() account: AuthenticatedAccount): Promise<AccountTokenDto[]> {
    return (await this.tokens.list(account.id)).map(view);
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'A new token, shown only in this answer (at most 100 live tokens per account)' })
  @ApiCreatedResponse({ type: CreatedAccountTokenDto })
  @ApiProblems(403, 409)
  async create(
    @CurrentAccount() account: AuthenticatedAccount,
    @Body() dto: CreateTokenDto,
  ): Promise<CreatedAccountTokenDto> {
    const created = await this.tokens.create(account.id, dto.label?.trim() || null);
    return { ...view(created), token: created.token };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a token at once (the one making this request too)' })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiProblems(403, 404)
  async revoke(@CurrentAccount() account: AuthenticatedAccount, @Param('id') id: string): Promise<void> {
    if (!isUuid(id) || !(await this.tokens.revoke(account.id, id))) throw new NotFoundProblem('token');
  }
}
