import {
  CONSENT_PURPOSES,
  CONSENT_SOURCES,
  CONSENT_STATES,
  ConsentHistoryEntry,
  ConsentPurpose,
  ConsentSource,
  ConsentState,
  ConsentStateView,
  GATEWAY_SEND_CHANNELS,
  GatewaySendChannel,
} from '@app/contracts';
import { ApiProperty } from '@nestjs/swagger';
import { ContactConsentView } from '../contacts.service';
import { ApiUnixSeconds } from '../../openapi/unix-seconds.decorator';

/** One purpose's consent on one channel address of a contact. */
export class ConsentStateDto implements ConsentStateView {
  @ApiProperty({ enum: GATEWAY_SEND_CHANNELS })
  channel: GatewaySendChannel;

  @ApiProperty({ example: '79990001122' })
  address: string;

  @ApiProperty({ enum: CONSENT_PURPOSES })
  purpose: ConsentPurpose;

  @ApiProperty({ enum: CONSENT_STATES })
  state: ConsentState;

  @ApiProperty({ enum: CONSENT_SOURCES, nullable: true, description: 'Where the last change came from' })
  source: ConsentSource | null;

  @ApiUnixSeconds({ nullable: true, description: 'null when never set' })
  since: number | null;
}

/** One recorded change of consent. */
export class ConsentHistoryEntryDto implements ConsentHistoryEntry {
  @ApiProperty({ enum: GATEWAY_SEND_CHANNELS })
  channel: GatewaySendChannel;

  @ApiProperty({ enum: CONSENT_PURPOSES })
  purpose: ConsentPurpose;

  @ApiProperty({ enum: CONSENT_STATES })
  state: ConsentState;

  @ApiProperty({ enum: CONSENT_SOURCES })
  source: ConsentSource;

  @ApiProperty({ type: String, nullable: true })
  evidence: string | null;

  @ApiUnixSeconds()
  at: number;
}

export class ContactConsentDto implements ContactConsentView {
  @ApiProperty({ type: [ConsentStateDto], description: "Both purposes of each of the contact's channels" })
  states: ConsentStateDto[];

  @ApiProperty({ type: [ConsentHistoryEntryDto], description: 'Changes, newest first (at most 100)' })
  history: ConsentHistoryEntryDto[];
}
