import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiAcceptedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseIdempotencyKey, problemDecorator, requestHash, ValidationProblem } from '@app/server';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../accounts/authenticated-account';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';
import { ConversationMessageView, ConversationsService, ConversationView } from './conversations.service';
import { ConversationReplyDto, UpdateConversationDto } from './dto/conversation-body.dto';
import { ListConversationMessagesDto, ListConversationsDto } from './dto/conversation-queries.dto';
import {
  ConversationDto,
  ConversationMessagePageDto,
  ConversationPageDto,
  ConversationReplyResponseDto,
} from './dto/conversation.dto';

/** A PATCH's 412, described. */
const ApiStaleVersion = problemDecorator({
  412: 'Precondition failed: the conversation changed since the version in If-Match (problem `version`: the current one)',
});

/** The version an If-Match names (`"3"`, `W/"3"` or `3`); null when none is given. */
function versionOf(ifMatch: string | undefined): number | null {
  if (ifMatch === undefined || ifMatch.trim() === '*') return null;
  const m = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(ifMatch);
  if (!m)
    throw new ValidationProblem([{ field: 'If-Match', message: 'If-Match must be the ETag of the conversation' }]);
  return Number(m[1]);
}

/** `/v1/conversations`: every customer's thread on each connection, read, worked and answered (docs/conversations.md). */
@ApiTags('conversations')
@ApiAccountToken()
@Controller('v1/conversations')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Get()
  @ApiOperation({
    summary:
      "The account's conversations, the latest updated first, paged; filters status, assignee, channel, label, unread, updated_since",
  })
  @ApiOkResponse({ type: ConversationPageDto })
  @ApiProblems(400)
  list(
    @CurrentAccount() account: AuthenticatedAccount,
    @Query() query: ListConversationsDto,
  ): Promise<{ data: ConversationView[]; next_cursor: string | null }> {
    return this.conversations.list(account, query);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'A conversation: its contact, channel, last message, unread count and WhatsApp window; ETag: its version',
  })
  @ApiOkResponse({
    type: ConversationDto,
    headers: { ETag: { description: 'The version: `"<version>"`', schema: { type: 'string' } } },
  })
  @ApiProblems(404)
  async get(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('id') id: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConversationView> {
    const row = await this.conversations.get(account, id);
    void reply.header('ETag', `"${row.version}"`);
    return this.conversations.viewOf(row);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Assign, change the status or the labels; with If-Match, only at that version (else 412)' })
  @ApiHeader({
    name: 'If-Match',
    required: false,
    description: 'The ETag of GET: the change applies only at that version',
  })
  @ApiOkResponse({ type: ConversationDto })
  @ApiProblems(400, 404)
  @ApiStaleVersion(412)
  async update(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('id') id: string,
    @Body() dto: UpdateConversationDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConversationView> {
    const row = await this.conversations.update(account, id, versionOf(ifMatch), dto);
    void reply.header('ETag', `"${row.version}"`);
    return this.conversations.viewOf(row);
  }

  @Get(':id/messages')
  @ApiOperation({
    summary: "The conversation's messages in channel order: the latest page, or the one before or after a message",
  })
  @ApiOkResponse({ type: ConversationMessagePageDto })
  @ApiProblems(400, 404)
  messages(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('id') id: string,
    @Query() query: ListConversationMessagesDto,
  ): Promise<{ data: ConversationMessageView[]; next_cursor: string | null }> {
    return this.conversations.messagesOf(account, id, query);
  }

  @Post(':id/messages')
  @HttpCode(202)
  @ApiOperation({ summary: 'Reply on the channel the customer used (text, or media by URL); 202 once it is queued' })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'Repeats return the first answer' })
  @ApiAcceptedResponse({ type: ConversationReplyResponseDto })
  @ApiProblems(400, 404, 409, 422)
  async reply(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('id') id: string,
    @Body() dto: ConversationReplyDto,
    @Headers('idempotency-key') rawKey: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConversationReplyResponseDto> {
    const key = parseIdempotencyKey(rawKey);
    const idempotency =
      key === undefined ? null : { key, hash: requestHash(request.method, request.url.split('?')[0], request.body) };
    const answer = await this.conversations.reply(account, id, dto, idempotency);
    if (answer.replayed) void reply.header('Idempotent-Replayed', 'true');
    void reply.header('Location', `/v1/messages/${answer.id}`);
    return { id: answer.id, status: answer.status, conversation_id: answer.conversation_id };
  }

  @Post(':id/read')
  @HttpCode(200)
  @ApiOperation({ summary: "Mark the customer's messages read: the unread count back to 0" })
  @ApiOkResponse({ type: ConversationDto })
  @ApiProblems(404)
  async read(@CurrentAccount() account: AuthenticatedAccount, @Param('id') id: string): Promise<ConversationView> {
    return this.conversations.viewOf(await this.conversations.markRead(account, id));
  }
}
