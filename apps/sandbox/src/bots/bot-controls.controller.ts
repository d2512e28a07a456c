import { SandboxConfig } from '../config';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  NotFoundException,
  Param,
  Post,
  Query,
  Req,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { NotFoundProblem, ValidationProblem } from '@app/server';
import {
  EmulatedBotChannel,
  BotEmulator,
  BotFault,
  EmulatedBot,
  MAX_EMULATOR,
  RecordedBotCall,
  TELEGRAM_EMULATOR,
  UpdateDelivery,
} from './bot-emulator';
import { EmulateBotInboundDto, RegisterBotDto, SetBotFaultDto } from './dto/bot-controls.dto';
import { maxUpdate } from './max-bot-api.controller';
import { telegramUpdate } from './telegram-bot-api.controller';
import { channelHasKind, maxKindUpdate, telegramKindUpdate } from './inbound-updates';

/** Controls of the Telegram and MAX emulators, `/_sandbox/telegram/...` and `/_sandbox/max/...` (docs/sandbox.md). */
@Controller('_sandbox/:channel')
export class BotControlsController {
  private updateSeq = 0;
  private readonly sentUpdates = new Map<number, { channel: EmulatedBotChannel; bot: EmulatedBot; update: object }>();

  constructor(
    @Inject(TELEGRAM_EMULATOR) private readonly telegram: BotEmulator,
    @Inject(MAX_EMULATOR) private readonly max: BotEmulator,
    private readonly config: SandboxConfig,
  ) {}

  private emulator(channel: string): BotEmulator {
    if (channel === 'telegram') return this.telegram;
    if (channel === 'max') return this.max;
    throw new NotFoundException();
  }

  @Post('bots')
  register(@Param('channel') channel: string, @Body() dto: RegisterBotDto): EmulatedBot {
    return this.emulator(channel).register(dto);
  }

  @Get('bots')
  bots(@Param('channel') channel: string): EmulatedBot[] {
    return this.emulator(channel).allBots();
  }

  /** Requests that reached the bot API, in arrival order; `include=all` adds refused and faulted ones. */
  @Get('calls')
  calls(
    @Param('channel') channel: string,
    @Query('include') include?: string,
    @Query('bot_id') botId?: string,
    @Query('method') method?: string,
  ): RecordedBotCall[] {
    return this.emulator(channel).listCalls({ include, bot_id: botId, method });
  }

  @Delete('calls')
  @HttpCode(204)
  clearCalls(@Param('channel') channel: string): void {
    this.emulator(channel).clearCalls();
  }

  @Post('faults')
  setFault(@Param('channel') channel: string, @Body() dto: SetBotFaultDto): BotFault {
    return this.emulator(channel).setFault({
      mode: dto.mode,
      count: dto.count ?? null,
      retry_after_seconds: dto.retry_after_seconds ?? 1,
      bot: dto.bot ?? null,
    });
  }

  @Get('faults')
  fault(@Param('channel') channel: string): { fault: BotFault | null } {
    return { fault: this.emulator(channel).currentFault() };
  }

  @Delete('faults')
  @HttpCode(204)
  clearFault(@Param('channel') channel: string): void {
    this.emulator(channel).clearFault();
  }

  /** Posts an update to the bot's webhook as the channel would: any `kind` of message, an edit, a reaction or a button press. */
  @Post('inbound')
  async inbound(
    @Param('channel') channel: string,
    @Body() dto: EmulateBotInboundDto,
    @Req() req: FastifyRequest,
  ): Promise<{ update_id: number; update: object; webhook: UpdateDelivery }> {
    const emulator = this.emulator(channel);
    if (dto.repeat_update_id !== undefined) {
      const sent = this.sentUpdates.get(dto.repeat_update_id);
      if (!sent || sent.channel !== channel) throw new NotFoundProblem('update');
      return {
        update_id: dto.repeat_update_id,
        update: sent.update,
        webhook: await emulator.deliverUpdate(sent.bot, sent.update),
      };
    }
    const bot = emulator.allBots().find((b) => b.token === dto.bot || String(b.id) === dto.bot);
    if (!bot) throw new NotFoundProblem('bot');
    if (dto.kind !== undefined && !channelHasKind(emulator.channel, dto.kind)) {
      throw new ValidationProblem([{ field: 'kind', message: `${channel} has no ${dto.kind} update` }]);
    }
    if (channel === 'telegram' && dto.message_id !== undefined && !/^\d{1,15}$/.test(dto.message_id)) {
      throw new ValidationProblem([{ field: 'message_id', message: 'a Telegram message id is a number' }]);
    }
    if ((dto.kind === 'edit' || dto.kind === 'reaction') && !dto.message_id) {
      throw new ValidationProblem([{ field: 'message_id', message: `${dto.kind} needs message_id` }]);
    }
    if (
      dto.kind === undefined &&
      dto.text === undefined &&
      dto.photo_url === undefined &&
      dto.document_url === undefined &&
      dto.callback_data === undefined
    ) {
      throw new ValidationProblem([{ field: 'text', message: 'give text, photo_url, document_url or callback_data' }]);
    }
    const updateId = ++this.updateSeq;
    const kind = dto.kind;
    const update =
      channel === 'telegram'
        ? kind
          ? telegramKindUpdate(updateId, bot, { ...dto, kind })
          : telegramUpdate(updateId, bot, { chat_id: dto.from, ...dto, message_id: Number(dto.message_id ?? 1) })
        : kind
          ? maxKindUpdate(bot, { ...dto, kind, media_base: `${req.protocol}://${req.headers.host}` }, updateId)
          : maxUpdate(bot, { user_id: dto.from, ...dto }, updateId);
    this.sentUpdates.set(updateId, { channel: emulator.channel, bot, update });
    // Kept to be sent again on request: the most recent only (SANDBOX_RECORDS_MAX).
    if (this.sentUpdates.size > this.config.SANDBOX_RECORDS_MAX) {
      this.sentUpdates.delete(this.sentUpdates.keys().next().value as number);
    }
    return { update_id: updateId, update, webhook: await emulator.deliverUpdate(bot, update) };
  }

  /** Forgets bots, calls and faults of this channel. */
  @Post('reset')
  @HttpCode(204)
  reset(@Param('channel') channel: string): void {
    this.emulator(channel).reset();
  }
}
