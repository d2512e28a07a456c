import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../accounts/authenticated-account';
import { ConnectionsService, ConnectionView } from './connections.service';
import { CreateConnectionDto } from './dto/create-connection.dto';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';
import { ConnectionDto } from './dto/connection.dto';

/** The account's channels: `POST/GET /v1/connections`, `GET/DELETE /v1/connections/{id}`. */
@ApiTags('connections')
@ApiAccountToken()
@Controller('v1/connections')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class ConnectionsController {
  constructor(private readonly connections: ConnectionsService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Link a WhatsApp app, connect a Telegram or MAX bot, or connect a course platform' })
  @ApiCreatedResponse({ type: ConnectionDto })
  @ApiProblems(403, 404, 409, 422)
  async create(
    @CurrentAccount() account: AuthenticatedAccount,
    @Body() dto: CreateConnectionDto,
  ): Promise<ConnectionView> {
    const { connection, secret } = await this.connections.create(account, dto);
    return { ...this.connections.view(connection), ...(secret ? { secret } : {}) };
  }

  @Get()
  @ApiOperation({ summary: "The account's connections (at most 200), live ones first, newest first" })
  @ApiOkResponse({ type: [ConnectionDto] })
  async list(@CurrentAccount() account: AuthenticatedAccount): Promise<ConnectionView[]> {
    return (await this.connections.list(account)).map((c) => this.connections.view(c));
  }

  @Get(':id')
  @ApiOperation({ summary: 'One connection' })
  @ApiOkResponse({ type: ConnectionDto })
  @ApiProblems(403, 404)
  async get(@CurrentAccount() account: AuthenticatedAccount, @Param('id') id: string): Promise<ConnectionView> {
    return this.connections.view(await this.connections.get(account, id));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Disconnect: the channel stops sending updates; 204 also when it already was' })
  @ApiNoContentResponse({ description: 'Disconnected' })
  @ApiProblems(403, 404)
  async remove(@CurrentAccount() account: AuthenticatedAccount, @Param('id') id: string): Promise<void> {
    await this.connections.remove(account, id);
  }
}
