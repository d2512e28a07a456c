import { ConsentSettings } from '@app/contracts';
import { ApiProperty } from '@nestjs/swagger';

/** The business's consent settings (docs/consent.md#settings). */
export class ConsentSettingsDto implements ConsentSettings {
  @ApiProperty({ description: 'Marketing needs an explicit opted_in; unknown is refused like opted_out' })
  marketing_requires_opt_in: boolean;

  @ApiProperty({ type: [String], example: ['STOP', 'UNSUBSCRIBE'], description: 'Inbound texts that opt out' })
  opt_out_keywords: string[];

  @ApiProperty({ type: [String], example: ['START'], description: 'Inbound texts that opt back in' })
  opt_in_keywords: string[];
}
