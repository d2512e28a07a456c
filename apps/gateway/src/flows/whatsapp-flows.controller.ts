import { Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ChannelFlowPage } from '@app/contracts';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../accounts/authenticated-account';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';
import { ListWhatsAppFlowsDto, PublishedWhatsAppFlowDto, WhatsAppFlowPageDto } from './dto/whatsapp-flow.dto';
import { WhatsAppFlowsService } from './whatsapp-flows.service';

/** `/v1/flows`: the linked WhatsApp app's Flows, listed and published (docs/gateway.md#whatsapp-flows). */
@ApiTags('flows')
@ApiAccountToken()
@Controller('v1/flows')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class WhatsAppFlowsController {
  constructor(private readonly flows: WhatsAppFlowsService) {}

  @Get()
  @ApiOperation({ summary: "The linked WhatsApp app's Flows (id, name, status, categories), a page at a time" })
  @ApiOkResponse({ type: WhatsAppFlowPageDto })
  @ApiProblems(400, 422, 503)
  list(@CurrentAccount() account: AuthenticatedAccount, @Query() q: ListWhatsAppFlowsDto): Promise<ChannelFlowPage> {
    return this.flows.list(account, q);
  }

  @Post(':id/publish')
  @HttpCode(200)
  @ApiOperation({ summary: 'Publish a DRAFT Flow (irreversible); the channel refuses a published or deprecated one' })
  @ApiOkResponse({ type: PublishedWhatsAppFlowDto })
  @ApiProblems(400, 404, 422, 503)
  publish(@CurrentAccount() account: AuthenticatedAccount, @Param('id') id: string): Promise<PublishedWhatsAppFlowDto> {
    return this.flows.publish(account, id);
  }
}
