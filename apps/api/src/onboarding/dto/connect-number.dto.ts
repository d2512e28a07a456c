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

/** The result of the channel's embedded signup, as the onboarding page receives it. */
export class ConnectSignupDto {
  @ApiProperty({ example: '102290129340398' })
  @IsString()
  @Matches(/^[0-9]{1,32}$/, { message: 'waba_id must be the numeric business account id' })
  waba_id: string;

  @ApiProperty({ example: '106540352242922' })
  @IsString()
  @Matches(/^[0-9]{1,32}$/, { message: 'phone_number_id must be the numeric phone number id' })
  phone_number_id: string;

  @ApiProperty({ example: '79990001122', pattern: PHONE.source })
  @IsString()
  @Matches(PHONE, { message: PHONE_MESSAGE })
  phone: string;
}

export class ConnectedDto {
  @ApiProperty({ enum: ['ACTIVE'] })
  status: string;

  @ApiProperty()
  phone: string;

  @ApiProperty()
  waba_id: string;
}
