import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';

const PHONE = /^[1-9][0-9]{7,14}$/;
const PHONE_MESSAGE = 'phone must be 8 to 15 digits in international format, without a plus sign or a leading 0';

/** Sandbox onboarding: the number to connect. */
export class ConnectSandboxNumberDto {
  @ApiProperty({ example: '79990001122', pattern: PHONE.source })
  @IsString()
  @Matches(PHONE, { message: PHONE_MESSAGE })
  phone: string;
}

/**
 * What Meta's embedded signup gave the page: the code (exchanged by the server) and the ids the
 * business chose. The ids are checked against what the code grants; the number is read from the channel.
 */
export class ConnectSignupDto {
  @ApiProperty({ description: 'The code of FB.login (response_type code)', maxLength: 2048 })
  @IsString()
  @Matches(/^[\x21-\x7e]{1,2048}$/, { message: 'code must be the signup code, 1 to 2048 printable characters' })
  code: string;

  @ApiProperty({ example: '102290129340398' })
  @IsString()
  @Matches(/^[0-9]{1,32}$/, { message: 'waba_id must be the numeric business account id' })
  waba_id: string;

  @ApiProperty({ example: '106540352242922' })
  @IsString()
  @Matches(/^[0-9]{1,32}$/, { message: 'phone_number_id must be the numeric phone number id' })
  phone_number_id: string;
}

export class ConnectedDto {
  @ApiProperty({ enum: ['ACTIVE'] })
  status: string;

  @ApiProperty()
  phone: string;

  @ApiProperty()
  waba_id: string;
}
