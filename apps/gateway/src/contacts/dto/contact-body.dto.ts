import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CONSENT_PURPOSES, CONSENT_STATES, ConsentPurpose, ConsentState, GATEWAY_SEND_CHANNELS } from '@app/contracts';
import { MAX_CONTACT_ADDRESSES } from '../contact-addresses';
import { CONTACT_LIMITS } from '../contact-fields';
import { ContactAddressDto } from './contact.dto';

/**
 * The request bodies of the contact and consent routes as the OpenAPI document shows them. The
 * routes parse their bodies themselves (contact-fields.ts, contacts.service.ts, the api's consent
 * settings), naming every bad field in a 400; these classes only describe what they take.
 */

/**
 * Each channel's primary address by the channel's name; another kind of address is set by
 * `<channel>:<kind>` (`whatsapp:user_id`, `whatsapp:username`, `telegram:username`) the same way.
 */
export class ContactIdentitiesBodyDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '+7 999 000-11-22',
    description:
      "A phone number, international or (with the account's region) national, kept as international digits; null clears it",
  })
  whatsapp?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: '7012345678', description: 'A Telegram chat id' })
  telegram?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'A MAX user id' })
  max?: string | null;
}

/** `POST /v1/contacts` and `PATCH /v1/contacts/{ref}`: absent fields are left as they are, null clears one. */
export class ContactBodyDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: CONTACT_LIMITS.externalId,
    example: 'crm-1042',
    description: "The business's own id, unique in the account (409 when taken)",
  })
  external_id?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: CONTACT_LIMITS.name, example: 'Anna Petrova' })
  name?: string | null;

  @ApiPropertyOptional({
    type: ContactIdentitiesBodyDto,
    description:
      `Its primary address on each channel (${GATEWAY_SEND_CHANNELS.join(', ')}), or another kind as ` +
      '`<channel>:<kind>`: each replaces the addresses of its kind (null removes them); each address is unique in the account (409 when taken)',
  })
  identities?: ContactIdentitiesBodyDto;

  @ApiPropertyOptional({
    type: [ContactAddressDto],
    maxItems: MAX_CONTACT_ADDRESSES,
    description: `Every address of the contact, replacing all it had (applied before identities); at most ${MAX_CONTACT_ADDRESSES} in all, each unique in the account (409 when taken)`,
  })
  addresses?: ContactAddressDto[];

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Europe/Moscow', description: 'An IANA time zone' })
  time_zone?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'ru',
    description: 'A language code such as en or pt_BR',
  })
  language?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string', maxLength: CONTACT_LIMITS.attributeValue }, { type: 'number' }] },
    maxProperties: CONTACT_LIMITS.attributes,
    example: { plan: 'pro', orders: 3 },
    description: `At most ${CONTACT_LIMITS.attributes} keys of letters, digits, _ . - (the whole set is replaced)`,
  })
  attributes?: Record<string, string | number>;

  @ApiPropertyOptional({
    type: [String],
    maxItems: CONTACT_LIMITS.lists,
    example: ['customers'],
    description: `At most ${CONTACT_LIMITS.lists} list names (the whole set is replaced)`,
  })
  lists?: string[];
}

/** `PUT /v1/contacts/{ref}/consent`: one purpose's state on one channel of the contact, or on each. */
export class SetContactConsentDto {
  @ApiPropertyOptional({ enum: GATEWAY_SEND_CHANNELS, description: "Absent: each of the contact's channels" })
  channel?: string;

  @ApiProperty({ enum: CONSENT_PURPOSES })
  purpose: ConsentPurpose;

  @ApiProperty({ enum: CONSENT_STATES })
  state: ConsentState;

  @ApiPropertyOptional({ maxLength: 500, description: 'How the consent was given or withdrawn' })
  evidence?: string;
}

/** `PUT /v1/consent/settings`: the settings to change; absent ones are left as they are. */
export class UpdateConsentSettingsDto {
  @ApiPropertyOptional({ description: 'Marketing needs an explicit opted_in' })
  marketing_requires_opt_in?: boolean;

  @ApiPropertyOptional({ type: [String], maxItems: 50, example: ['STOP'], description: 'Words of letters or digits' })
  opt_out_keywords?: string[];

  @ApiPropertyOptional({ type: [String], maxItems: 50, example: ['START'], description: 'Words of letters or digits' })
  opt_in_keywords?: string[];
}
