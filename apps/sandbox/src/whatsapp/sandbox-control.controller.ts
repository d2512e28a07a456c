import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { NotFoundProblem, ValidationProblem } from '@app/server';
import { SandboxConfig } from '../config';
import { AccountSignalsService } from './account-signals.service';
import { EmulateInboundDto } from './dto/emulate-inbound.dto';
import { EmulateSignalDto } from './dto/emulate-signal.dto';
import { PricingRuleDto, RecategorizeTemplateDto } from './dto/pricing-rule.dto';
import { RegisterPhoneNumberDto } from './dto/register-phone-number.dto';
import { SetFaultDto } from './dto/set-fault.dto';
import { Fault, GraphMessagesService, RecordedSend } from './messages.service';
import { PhoneNumbersService, SandboxPhoneNumber } from './phone-numbers.service';
import { PricingRule, SandboxPricingService } from './pricing.service';
import { SignupService } from './signup.service';
import { SandboxFlowsService } from './flows.service';
import { StoredTemplate, SandboxTemplatesService } from './templates.service';
import { WebhookDelivery, WebhookDispatcher } from './webhook-dispatcher';

/** Controls of the WhatsApp emulator for tests and local use (docs/sandbox.md). */
@Controller('_sandbox/whatsapp')
export class SandboxControlController {
  constructor(
    private readonly messages: GraphMessagesService,
    private readonly templates: SandboxTemplatesService,
    private readonly numbers: PhoneNumbersService,
    private readonly webhooks: WebhookDispatcher,
    private readonly signups: SignupService,
    private readonly signals: AccountSignalsService,
    private readonly pricing: SandboxPricingService,
    private readonly config: SandboxConfig,
    private readonly flows: SandboxFlowsService,
  ) {}

  /** Sends received, in arrival order; `include=all` adds refused and fault-answered ones. */
  @Get('messages')
  listMessages(
    @Query('include') include?: string,
    @Query('phone_number_id') phoneNumberId?: string,
    @Query('to') to?: string,
  ): RecordedSend[] {
    return this.messages.list({ include, phone_number_id: phoneNumberId, to });
  }

  @Delete('messages')
  @HttpCode(204)
  clearMessages(): void {
    this.messages.clear();
  }

  @Post('faults')
  setFault(@Body() dto: SetFaultDto): Fault {
    return this.messages.setFault({
      mode: dto.mode,
      count: dto.count ?? null,
      retry_after_seconds: dto.retry_after_seconds ?? 1,
      scope: dto.scope ?? 'messages',
      phone_number_id: dto.phone_number_id ?? null,
    });
  }

  @Get('faults')
  getFault(): { fault: Fault | null } {
    return { fault: this.messages.currentFault() };
  }

  @Delete('faults')
  @HttpCode(204)
  clearFault(): void {
    this.messages.clearFault();
  }

  /** A recipient writes to a business number: a text, a reaction, or any `kind` of inbound message. */
  @Post('inbound')
  async inbound(
    @Body() dto: EmulateInboundDto,
  ): Promise<{ id: string; webhook: { delivered: boolean; status: number | null } }> {
    if (dto.kind === undefined && (dto.text === undefined) === (dto.reaction === undefined)) {
      throw new ValidationProblem([{ field: 'text', message: 'give exactly one of text or reaction, or a kind' }]);
    }
    if ((dto.kind === 'reaction' && !dto.reaction) || (dto.kind === 'edit' && !dto.context_message_id)) {
      const field = dto.kind === 'edit' ? 'context_message_id' : 'reaction';
      throw new ValidationProblem([{ field, message: `${dto.kind} needs ${field}` }]);
    }
    const { id, webhook } = await this.messages.inbound(dto);
    return { id, webhook: { delivered: webhook.delivered, status: webhook.status } };
  }

  @Post('phone_numbers')
  registerNumber(@Body() dto: RegisterPhoneNumberDto): SandboxPhoneNumber {
    const { phone_number_id, ...rest } = dto;
    return this.numbers.register({ id: phone_number_id, ...rest });
  }

  /** A change of the number's account state: Graph answers it and (unless `callback: false`) the webhook goes out. */
  @Post('signals')
  @HttpCode(200)
  async signal(
    @Body() dto: EmulateSignalDto,
  ): Promise<{ number: SandboxPhoneNumber; webhook: { delivered: boolean; status: number | null } | null }> {
    const { number, webhook } = await this.signals.emulate(dto.phone_number_id, dto.kind, dto.value, dto.callback);
    return { number, webhook: webhook ? { delivered: webhook.delivered, status: webhook.status } : null };
  }

  @Get('templates')
  listTemplates(): StoredTemplate[] {
    return this.templates.all();
  }

  /**
   * The channel re-categorises a template: later sends are billed at the new category, and the
   * `template_category_update` webhook goes out (unless `callback` is false).
   */
  @Post('templates/:id/category')
  @HttpCode(200)
  async recategorize(
    @Param('id') id: string,
    @Body() dto: RecategorizeTemplateDto,
  ): Promise<{ template: StoredTemplate; webhook: { delivered: boolean; status: number | null } | null }> {
    const changed = await this.templates.recategorize(id, dto.category, dto.callback ?? true);
    if (!changed) throw new NotFoundProblem(`template ${id}`);
    return changed;
  }

  /** What the channel bills for a recipient's messages from now on (category, type, billable, or no pricing). */
  @Post('pricing')
  @HttpCode(200)
  setPricing(@Body() dto: PricingRuleDto): PricingRule {
    return this.pricing.setRule({ ...dto });
  }

  @Get('pricing')
  listPricing(): PricingRule[] {
    return this.pricing.listRules();
  }

  @Delete('pricing')
  @HttpCode(204)
  clearPricing(): void {
    this.pricing.clear();
  }

  /**
   * What the sandbox has recorded in all and what it keeps (SANDBOX_RECORDS_MAX, the most recent):
   * sends and webhooks, with the webhooks' attempts, counted whole.
   */
  @Get('records')
  records(): {
    kept_at_most: number;
    messages: { total: number; kept: number };
    webhooks: { total: number; kept: number; attempts: number };
  } {
    return {
      kept_at_most: this.config.SANDBOX_RECORDS_MAX,
      messages: this.messages.counts(),
      webhooks: this.webhooks.counts(),
    };
  }

  @Get('webhooks')
  listWebhooks(): WebhookDelivery[] {
    return this.webhooks.deliveries();
  }

  @Delete('webhooks')
  @HttpCode(204)
  clearWebhooks(): void {
    this.webhooks.clear();
  }

  /** Forgets everything: sends, faults, templates, Flows, numbers, webhook log, signups. */
  @Post('reset')
  @HttpCode(204)
  reset(): void {
    this.messages.clear();
    this.messages.clearFault();
    this.templates.clear();
    this.numbers.clear();
    this.webhooks.clear();
    this.signups.clear();
    this.pricing.clear();
    this.flows.clear();
  }
}
