import { Body, Controller, Get, Post } from '@nestjs/common';
import { RegisterPhoneNumberDto } from './dto/register-phone-number.dto';
import { SignupRecord, SignupService } from './signup.service';

/** Controls of the embedded-signup emulation (docs/sandbox.md). */
@Controller('_sandbox/whatsapp/signups')
export class SignupControlController {
  constructor(private readonly signups: SignupService) {}

  /** What the browser would get from Meta's popup: a code granting this WABA, for this number. */
  @Post()
  issue(@Body() dto: RegisterPhoneNumberDto): { code: string } {
    const { waba_id, phone_number_id, ...number } = dto;
    return { code: this.signups.issueCode({ waba_id, phone_number_id }, number) };
  }

  /** Webhook subscriptions and registrations the signups made. */
  @Get()
  record(): SignupRecord {
    return this.signups.record();
  }
}
