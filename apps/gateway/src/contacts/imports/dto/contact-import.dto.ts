import { ApiProperty } from '@nestjs/swagger';
import { ImportState, Rejection } from '../contact-imports.repository';
import { ImportView } from '../contact-imports.service';
import { ImportFormat } from '../import-rows';
import { ApiUnixSeconds } from '../../../openapi/unix-seconds.decorator';

/** A rejected row of an import. */
export class ImportRejectionDto implements Rejection {
  @ApiProperty({ example: 7, description: 'The row number (1 is the first row of data)' })
  row: number;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'crm-1042',
    description: 'The external id the row gives, as written (null when it gives none)',
  })
  external_id: string | null;

  @ApiProperty({ example: 'identities.whatsapp' })
  field: string;

  @ApiProperty({
    example:
      "must be a phone number: international (+7 999 000-05-00, or the digits 79990000500), or national with the account's default region",
  })
  reason: string;
}

/** A contact import: its state, counts and a page of rejected rows. */
export class ContactImportDto implements ImportView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: ['csv', 'ndjson'] })
  format: ImportFormat;

  @ApiProperty({ enum: ['receiving', 'processing', 'completed', 'failed'] })
  state: ImportState;

  @ApiProperty({ example: 1000 })
  rows_read: number;

  @ApiProperty({ example: 990 })
  created: number;

  @ApiProperty({ example: 0 })
  updated: number;

  @ApiProperty({ example: 0 })
  unchanged: number;

  @ApiProperty({ example: 10 })
  rejected: number;

  @ApiProperty({
    example: 0,
    description: 'Rows imported whose consent column the consent rules refused (listed among rejections)',
  })
  consent_refused: number;

  @ApiProperty({ type: String, nullable: true, description: 'Why a failed import stopped' })
  failure: string | null;

  @ApiUnixSeconds()
  created_at: number;

  @ApiUnixSeconds({ nullable: true })
  finished_at: number | null;

  @ApiProperty({ type: [ImportRejectionDto], description: 'Rejected rows in order, a page at a time' })
  rejections: ImportRejectionDto[];

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Pass as after_row for the next page of rejections; null on the last',
  })
  next_after_row: number | null;
}
