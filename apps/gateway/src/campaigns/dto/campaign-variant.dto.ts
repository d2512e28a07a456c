import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CAMPAIGN_LIMITS, CampaignVariant, CampaignVariantResult, SendContent, VARIANT_LIMITS } from '@app/contracts';
import { SendContentDto } from '../../messages/dto/send-gateway-message.dto';

/** One variant of a campaign (docs/campaigns.md#variants): a template with its params and its share of the audience. */
export class CampaignVariantDto implements CampaignVariant {
  @ApiProperty({
    minLength: 1,
    maxLength: VARIANT_LIMITS.nameLength,
    example: 'A',
    description: 'Distinct within the campaign',
  })
  name: string;

  @ApiPropertyOptional({
    example: 'sale_announcement',
    description: "A template campaign's variant: its template, resolved per channel as the campaign's",
  })
  template?: string;

  @ApiPropertyOptional({
    type: SendContentDto,
    nullable: true,
    description:
      "A content campaign's variant (then only name, content and share): its content, checked as the campaign's",
  })
  content?: SendContent | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'en' })
  language?: string | null;

  @ApiPropertyOptional({
    type: [String],
    maxItems: CAMPAIGN_LIMITS.params,
    example: ['{{contact.name}}'],
    description: "One per template variable, with the contact references the campaign's params take",
  })
  params?: string[];

  @ApiProperty({
    minimum: 1,
    maximum: VARIANT_LIMITS.shareTotal - 1,
    example: 50,
    description: "A whole percentage of the audience; the variants' shares sum to 100",
  })
  share: number;
}

/** How one variant did: each recipient counted once, by its message's status. */
export class CampaignVariantResultDto implements CampaignVariantResult {
  @ApiProperty({ example: 'A' })
  name: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'sale_announcement',
    description: "Null for a content campaign's variant",
  })
  template: string | null;

  @ApiProperty({ example: 50 })
  share: number;

  @ApiProperty({ example: 150, description: 'Recipients assigned to it (excluded ones included)' })
  recipients: number;

  @ApiProperty({ example: 142, description: 'Recipients whose message the send path accepted' })
  accepted: number;

  @ApiProperty({ example: 140, description: 'Reached the channel: sent, delivered or read' })
  sent: number;

  @ApiProperty({ example: 131, description: 'Delivered or read' })
  delivered: number;

  @ApiProperty({ example: 60 })
  read: number;

  @ApiProperty({ example: 2 })
  failed: number;

  @ApiProperty({ example: 6.55, description: "What its messages were charged, in the balance's currency" })
  cost: number;

  @ApiPropertyOptional({ example: 31, description: 'With tracked links: its recipients who clicked one' })
  clicked?: number;

  @ApiProperty({ example: 12, description: 'Its recipients who replied to their message' })
  replied: number;
}
