import { Allow, IsBoolean, IsIn, IsOptional, IsString, Matches } from 'class-validator';

export const SIGNAL_KINDS = ['quality', 'limit', 'capability', 'restriction', 'disabled', 'offboarded'] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];

/** A change of a business number's account state on the channel (docs/sandbox.md, Account signals). */
export class EmulateSignalDto {
  @IsString()
  @Matches(/^\d{1,32}$/)
  phone_number_id!: string;

  @IsIn(SIGNAL_KINDS)
  kind!: SignalKind;

  /** quality: GREEN|YELLOW|RED|UNKNOWN; limit: a tier name; capability: a daily cap; the rest: true|false. */
  @Allow()
  value!: unknown;

  /** false: change what Graph answers without sending the webhook (a missed callback). Default true. */
  @IsOptional()
  @IsBoolean()
  callback?: boolean;
}
