import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Param,
  Patch,
  Post,
  Put,
  Query,
  StreamableFile,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../accounts/authenticated-account';
import { ContactConsentView, ContactsService, ContactView } from './contacts.service';
import { ContactBodyDto, SetContactConsentDto } from './dto/contact-body.dto';
import { ListContactsDto } from './dto/list-contacts.dto';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';
import { ContactConsentDto } from './dto/contact-consent.dto';
import { ContactDto, ContactPageDto } from './dto/contact.dto';

/** `/v1/contacts`: the account's contacts and their consent (docs/contacts.md). */
@ApiTags('contacts')
@ApiAccountToken()
@Controller('v1/contacts')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a contact: its identities on each channel, time zone, language, attributes, lists' })
  @ApiBody({ type: ContactBodyDto })
  @ApiCreatedResponse({ type: ContactDto })
  @ApiProblems(400, 409)
  async create(@CurrentAccount() account: AuthenticatedAccount, @Body() body: unknown): Promise<ContactView> {
    return this.contacts.view(await this.contacts.create(account, body), account);
  }

  @Get()
  @ApiOperation({
    summary:
      "The account's contacts in creation order, paged; filters list, q and channel; Accept: text/csv exports them all",
  })
  @ApiExtraModels(ContactPageDto)
  @ApiOkResponse({
    description: 'A page of contacts; with Accept: text/csv, every contact matching the filters as a CSV file',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(ContactPageDto) } },
      'text/csv': { schema: { type: 'string' } },
    },
  })
  @ApiProblems(400)
  async list(
    @CurrentAccount() account: AuthenticatedAccount,
    @Query() query: ListContactsDto,
    @Headers('accept') accept: string | undefined,
  ): Promise<{ data: ContactView[]; next_cursor: string | null } | StreamableFile> {
    const filter = { list: query.list, q: query.q, channel: query.channel };
    if (/\btext\/csv\b/i.test(accept ?? '')) {
      const csv = await this.contacts.exportCsv(account, filter);
      return new StreamableFile(csv, {
        type: 'text/csv; charset=utf-8',
        disposition: 'attachment; filename="contacts.csv"',
      });
    }
    const page = await this.contacts.list(
      account,
      filter,
      query.cursor ?? null,
      query.limit === undefined ? 50 : Number(query.limit),
    );
    return { data: page.data.map((c) => this.contacts.view(c, account)), next_cursor: page.next_cursor };
  }

  @Get(':ref')
  @ApiOperation({ summary: 'A contact, by id or ext:<external id>' })
  @ApiOkResponse({ type: ContactDto })
  @ApiProblems(403, 404)
  async get(@CurrentAccount() account: AuthenticatedAccount, @Param('ref') ref: string): Promise<ContactView> {
    return this.contacts.view(await this.contacts.get(account, ref), account);
  }

  @Patch(':ref')
  @ApiOperation({ summary: 'Change some fields of a contact (null clears one)' })
  @ApiBody({ type: ContactBodyDto })
  @ApiOkResponse({ type: ContactDto })
  @ApiProblems(400, 403, 404, 409)
  async update(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('ref') ref: string,
    @Body() body: unknown,
  ): Promise<ContactView> {
    return this.contacts.view(await this.contacts.update(account, ref, body), account);
  }

  @Delete(':ref')
  @HttpCode(204)
  @ApiOperation({ summary: "Erase a contact's personal data (its opt-outs stay, keyed by a hash of each address)" })
  @ApiNoContentResponse({ description: 'Erased' })
  @ApiProblems(403, 404)
  async remove(@CurrentAccount() account: AuthenticatedAccount, @Param('ref') ref: string): Promise<void> {
    await this.contacts.remove(account, ref);
  }

  @Get(':ref/consent')
  @ApiOperation({ summary: "The contact's consent on each of its channels, and the history of changes" })
  @ApiOkResponse({ type: ContactConsentDto })
  @ApiProblems(403, 404, 422)
  consent(@CurrentAccount() account: AuthenticatedAccount, @Param('ref') ref: string): Promise<ContactConsentView> {
    return this.contacts.consent(account, ref);
  }

  @Put(':ref/consent')
  @ApiOperation({ summary: "Set one purpose's consent on one or every channel of the contact" })
  @ApiBody({ type: SetContactConsentDto })
  @ApiOkResponse({ type: ContactConsentDto, description: "The contact's consent after the change" })
  @ApiProblems(400, 403, 404, 422)
  setConsent(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('ref') ref: string,
    @Body() body: unknown,
  ): Promise<ContactConsentView> {
    return this.contacts.setConsent(account, ref, body);
  }
}
