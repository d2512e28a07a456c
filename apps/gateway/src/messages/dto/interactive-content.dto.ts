import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
  MinLength,
  validateSync,
  ValidateNested,
  ValidationArguments,
  ValidatorConstraint,
  ValidatorConstraintInterface,
} from 'class-validator';
import { plainToInstance, Type } from 'class-transformer';
import { MAX_CONTENT_ROWS } from '@app/contracts';

/**
 * The longest label, title or id any channel takes; each channel's own limits (shorter on
 * WhatsApp) are checked per send against the channel it goes to (docs/gateway.md#content-kinds).
 */
const LONGEST_LABEL = 128;
const LONGEST_ID = 256;
/** An id that comes back in a press: printable, no surrounding spaces. */
const ID = /^\S(.*\S)?$/;

/** An https URL (its host is checked by the egress policy where the platform fetches it). */
const httpsUrl = (field: string) =>
  IsUrl({ protocols: ['https'], require_protocol: true }, { message: `${field} must be an https URL` });

/** A reply button of a `buttons` message: `id` comes back as `content.reply.id` when pressed. */
export class ContentButtonDto {
  @ApiProperty({ example: 'yes', description: 'Comes back in the press (Telegram: at most 64 bytes)' })
  @IsString()
  @MinLength(1)
  @MaxLength(LONGEST_ID)
  @Matches(ID, { message: 'id must not start or end with spaces' })
  id: string;

  @ApiProperty({ example: 'Yes', description: 'The label (WhatsApp: at most 20 characters)' })
  @IsString()
  @MinLength(1)
  @MaxLength(LONGEST_LABEL)
  title: string;
}

/** A media header of a `buttons` message, by https URL. */
export class ContentHeaderDto {
  @ApiProperty({ enum: ['image', 'video', 'document'] })
  @IsIn(['image', 'video', 'document'])
  type: 'image' | 'video' | 'document';

  @ApiProperty({ example: 'https://cdn.example.com/parcel.jpg' })
  @IsString()
  @MaxLength(2048)
  @httpsUrl('content.header.url')
  url: string;
}

/** A row of a `list`: `id` comes back as `content.reply.id` when picked. */
export class ContentListRowDto {
  @ApiProperty({ example: 'slot-10' })
  @IsString()
  @MinLength(1)
  @MaxLength(LONGEST_ID)
  @Matches(ID, { message: 'id must not start or end with spaces' })
  id: string;

  @ApiProperty({ example: '10:00', description: 'WhatsApp: at most 24 characters' })
  @IsString()
  @MinLength(1)
  @MaxLength(LONGEST_LABEL)
  title: string;

  @ApiPropertyOptional({ example: 'Morning', description: 'WhatsApp: at most 72 characters' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(LONGEST_LABEL)
  description?: string;
}

/** A section of a `list`: a title and its rows (all sections together: at most 10 rows). */
export class ContentListSectionDto {
  @ApiProperty({ example: 'Tomorrow', description: 'WhatsApp: at most 24 characters' })
  @IsString()
  @MinLength(1)
  @MaxLength(LONGEST_LABEL)
  title: string;

  @ApiProperty({ type: [ContentListRowDto] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_CONTENT_ROWS)
  @ValidateNested({ each: true })
  @Type(() => ContentListRowDto)
  rows: ContentListRowDto[];
}

/** The link button of a `cta_url` message. */
export class ContentCtaButtonDto {
  @ApiProperty({ example: 'Track parcel', description: 'WhatsApp: at most 20 characters' })
  @IsString()
  @MinLength(1)
  @MaxLength(LONGEST_LABEL)
  title: string;

  @ApiProperty({ example: 'https://shop.example/track/A-1001' })
  @IsString()
  @MaxLength(2048)
  @httpsUrl('content.button.url')
  url: string;
}

/**
 * `content.button`: a `list`'s button label (text), or a `cta_url`'s link button
 * (`{title, url}`, checked as ContentCtaButtonDto, unknown fields refused).
 */
@ValidatorConstraint({ name: 'contentButton' })
export class ContentButtonConstraint implements ValidatorConstraintInterface {
  private problem = '';

  validate(value: unknown, args: ValidationArguments): boolean {
    const type = (args.object as { type?: string }).type;
    if (type === 'list') {
      const ok = typeof value === 'string' && value.length >= 1 && value.length <= LONGEST_LABEL;
      this.problem = `content.button of a list must be its button label (1 to ${LONGEST_LABEL} characters)`;
      return ok;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.problem = 'content.button of a cta_url must be an object {title, url}';
      return false;
    }
    const errors = validateSync(plainToInstance(ContentCtaButtonDto, value), {
      whitelist: true,
      forbidNonWhitelisted: true,
    });
    this.problem = errors
      .flatMap((e) => Object.values(e.constraints ?? {}).map((m) => `content.button.${e.property}: ${m}`))
      .join('; ');
    return errors.length === 0;
  }

  defaultMessage(): string {
    return this.problem;
  }
}
