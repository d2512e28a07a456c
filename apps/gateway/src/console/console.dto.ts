import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { ApiNextCursor } from '../paging/cursor-page.dto';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords';
import { CONSOLE_LOCALES, CONSOLE_ROLES, ConsoleLocale, ConsoleRole } from './console-roles';

/** `POST /console/api/session`. */
export class SignInDto {
  @ApiProperty({ example: 'owner@example.com' })
  @IsString()
  @MaxLength(254)
  email: string;

  @ApiProperty({ writeOnly: true })
  @IsString()
  @MaxLength(PASSWORD_MAX_LENGTH)
  password: string;
}

/** `POST /console/api/invitations/accept`: the token from the invitation link and a new password. */
export class AcceptInvitationDto {
  @ApiProperty({ description: 'The part of the invitation link after #' })
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{43}$/, { message: 'token must be the token of an invitation link' })
  token: string;

  @ApiProperty({ writeOnly: true, minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH })
  @IsString()
  @MinLength(PASSWORD_MIN_LENGTH)
  @MaxLength(PASSWORD_MAX_LENGTH)
  password: string;
}

/** `POST /console/api/users/invitations`. */
export class InviteUserDto {
  @ApiProperty({ example: 'agent@example.com' })
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email: string;

  @ApiProperty({ enum: CONSOLE_ROLES })
  @IsIn(CONSOLE_ROLES)
  role: ConsoleRole;
}

/** `PATCH /console/api/users/{id}`. */
export class UpdateUserDto {
  @ApiProperty({ enum: CONSOLE_ROLES })
  @IsIn(CONSOLE_ROLES)
  role: ConsoleRole;
}

/** `PATCH /console/api/me`. */
export class UpdateMeDto {
  @ApiProperty({ enum: CONSOLE_LOCALES })
  @IsIn(CONSOLE_LOCALES)
  locale: ConsoleLocale;
}

/** The signed-in console user. */
export class ConsoleMeDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  email: string;

  @ApiProperty({ enum: CONSOLE_ROLES })
  role: ConsoleRole;

  @ApiProperty({ format: 'uuid' })
  account_id: string;

  @ApiProperty()
  account_name: string;

  @ApiProperty({ enum: CONSOLE_LOCALES })
  locale: ConsoleLocale;
}

/** A console session: its user, and the token every change must carry in X-CSRF-Token. */
export class ConsoleSessionDto {
  @ApiProperty({ type: ConsoleMeDto })
  user: ConsoleMeDto;

  @ApiProperty({ description: 'Send as X-CSRF-Token with every request that changes something' })
  csrf_token: string;
}

/** A console user of the account. */
export class ConsoleUserDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  email: string;

  @ApiProperty({ enum: CONSOLE_ROLES })
  role: ConsoleRole;

  @ApiProperty({ enum: CONSOLE_LOCALES })
  locale: ConsoleLocale;

  @ApiProperty({ type: 'integer', description: 'Unix seconds' })
  created_at: number;
}

/** An invitation: its link, shown only in this answer. */
export class InvitationDto {
  @ApiProperty({ example: 'https://gateway.example.com/console/invite#…' })
  invitation_url: string;

  @ApiProperty({ type: 'integer', description: 'Unix seconds; the link works once, until then' })
  expires_at: number;
}

/** One line of the audit log. */
export class AuditEntryDto {
  @ApiProperty({ type: 'integer', description: 'Unix seconds' })
  at: number;

  @ApiProperty({ type: String, nullable: true, description: 'null: an operator at the CLI' })
  user_email: string | null;

  @ApiProperty({ example: 'POST /v1/campaigns/:id/launch' })
  action: string;

  @ApiProperty({ type: String, nullable: true, description: 'The id acted on, if any' })
  target: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The answer status and what changed' })
  details: Record<string, unknown>;
}

export class AuditPageDto {
  @ApiProperty({ type: [AuditEntryDto] })
  data: AuditEntryDto[];

  @ApiNextCursor()
  next_cursor: string | null;
}
