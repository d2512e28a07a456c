import { IsBoolean, IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { PRICING_CATEGORIES, PricingCategory, SANDBOX_PRICING_TYPES, SandboxPricingType } from '../pricing.service';

/** What the emulated channel bills for one recipient's messages (docs/sandbox.md, Pricing). */
export class PricingRuleDto {
  /** The recipient, digits only; or `*` and digits: every recipient ending in them. */
  @IsString()
  @Matches(/^\*?\d{1,32}$/)
  to!: string;

  @IsOptional()
  @IsIn(PRICING_CATEGORIES)
  category?: PricingCategory;

  @IsOptional()
  @IsIn(SANDBOX_PRICING_TYPES)
  type?: SandboxPricingType;

  @IsOptional()
  @IsBoolean()
  billable?: boolean;

  /** true: the recipient's statuses carry no pricing (an older API version). */
  @IsOptional()
  @IsBoolean()
  omit?: boolean;
}

/** The channel moves a template to another category (docs/sandbox.md, Template moderation). */
export class RecategorizeTemplateDto {
  @IsIn(['MARKETING', 'UTILITY', 'AUTHENTICATION'])
  category!: 'MARKETING' | 'UTILITY' | 'AUTHENTICATION';

  /** false: change what Graph lists without sending the webhook (a missed callback). Default true. */
  @IsOptional()
  @IsBoolean()
  callback?: boolean;
}
