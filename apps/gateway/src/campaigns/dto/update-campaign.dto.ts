import { PartialType } from '@nestjs/swagger';
import { CampaignDefinitionDto } from './campaign-definition.dto';

/** `PATCH /v1/campaigns/{id}`: the fields to change; null clears an optional one. */
export class CampaignPatchDto extends PartialType(CampaignDefinitionDto) {}
