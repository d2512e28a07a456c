import { ContactAddress, GatewaySendChannel } from '@app/contracts';
import { ApiProperty } from '@nestjs/swagger';
import { ContactView } from '../contacts.service';
import { ApiNextCursor } from '../../paging/cursor-page.dto';
import { ApiUnixSeconds } from '../../openapi/unix-seconds.decorator';

/** A contact's identity on each channel: WhatsApp phone, Telegram chat id, MAX user id. */
export class ContactIdentitiesDto implements Record<GatewaySendChannel, string | null> {
  @ApiProperty({ type: String, nullable: true, example: '79990001122' })
  whatsapp: string | null;

  @ApiProperty({ type: String, nullable: true, example: '7012345678' })
  telegram: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  max: string | null;
}

/** One of a contact's addresses (docs/contacts.md#addresses). */
export class ContactAddressDto implements ContactAddress {
  @ApiProperty({ example: 'whatsapp' })
  channel: string;

  @ApiProperty({
    example: 'user_id',
    description: 'phone, user_id or username on WhatsApp; chat_id or username on Telegram; user_id on MAX',
  })
  kind: string;

  @ApiProperty({ example: 'US.13491208655302741918' })
  value: string;
}

export class ContactDto implements ContactView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ type: String, nullable: true, example: 'crm-1042', description: "The business's own id" })
  external_id: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Anna Petrova' })
  name: string | null;

  @ApiProperty({ type: ContactIdentitiesDto })
  identities: ContactIdentitiesDto;

  @ApiProperty({
    type: [ContactAddressDto],
    description: 'Every address, by channel and kind (the primary kind first)',
  })
  addresses: ContactAddressDto[];

  @ApiProperty({ example: 'Europe/Moscow', description: "The contact's own, or the account's when it names none" })
  time_zone: string;

  @ApiProperty({ type: String, nullable: true, example: 'ru' })
  language: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }] },
    example: { plan: 'pro', orders: 3 },
  })
  attributes: Record<string, string | number>;

  @ApiProperty({ type: [String], example: ['customers'] })
  lists: string[];

  @ApiUnixSeconds()
  created_at: number;

  @ApiUnixSeconds()
  updated_at: number;
}

export class ContactPageDto {
  @ApiProperty({ type: [ContactDto] })
  data: ContactDto[];

  @ApiNextCursor()
  next_cursor: string | null;
}
