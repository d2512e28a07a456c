import { Body, Controller, Get, Headers, HttpCode, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthenticatedUser, CurrentUser, SystemTokenGuard } from '../auth';
import { IdempotencyService, requestHash } from '../idempotency/idempotency.service';
import { ApiProblems, ApiSystemToken } from '../openapi/api-problems.decorator';
import { RateLimitGuard } from '../rate-limit';
import { MessageStatusDto } from './dto/message-status.dto';
import { SendMessageDto, SendMessageResponseDto } from './dto/send-message.dto';
import { MessagesService, MessageStatusView } from './messages.service';

@ApiTags('Messages')
@ApiSystemToken()
@UseGuards(SystemTokenGuard, RateLimitGuard)
@Controller('v1/wa/apps/:appId/messages')
export class MessagesController {
  constructor(
    private readonly messages: MessagesService,
    private readonly idempotency: IdempotencyService,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Send a message (text, media, audio, reaction or template); 201 once it is queued' })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'Repeats return the first answer' })
  @ApiCreatedResponse({ type: SendMessageResponseDto })
  @ApiProblems(400, 403, 404, 409, 413, 415, 422, 503)
  async send(
    @CurrentUser() user: AuthenticatedUser,
    @Param('appId') appId: string,
    @Body() dto: SendMessageDto,
    @Headers('idempotency-key') rawKey: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SendMessageResponseDto> {
    const key = this.idempotency.parseKey(rawKey);
    const hash = requestHash(request.method, request.url.split('?')[0], request.body);
    const answer = await this.idempotency.run(
      user.id,
      key,
      hash,
      async (lease) => ({ status: 201, body: await this.messages.send(user.id, appId, dto, lease) }),
      // A send committed with this key by a request that died, stalled or lost its answer: its 201.
      async () => {
        const id = key === undefined ? null : await this.messages.acceptedWithKey(user.id, key, hash);
        return id ? { status: 201, body: { message: { id } } } : null;
      },
    );
    if (answer.replayed) void reply.header('Idempotent-Replayed', 'true');
    return answer.body;
  }

  @Get(':messageId')
  @ApiOperation({ summary: "A message's status and timeline (never its content)" })
  @ApiOkResponse({ type: MessageStatusDto })
  @ApiProblems(403, 404)
  status(
    @CurrentUser() user: AuthenticatedUser,
    @Param('appId') appId: string,
    @Param('messageId') messageId: string,
  ): Promise<MessageStatusView> {
    return this.messages.status(user.id, appId, messageId);
  }
}
