import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';

/** A Flow made in a WABA (what Flow Builder or `POST /{waba_id}/flows` would have made). */
export class CreateSandboxFlowDto {
  @IsString()
  @Matches(/^\d{1,32}$/)
  waba_id!: string;

  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @IsOptional()
  @IsIn(['DRAFT', 'PUBLISHED', 'DEPRECATED'])
  status?: 'DRAFT' | 'PUBLISHED' | 'DEPRECATED';

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  categories?: string[];
}

/** A customer submits the Flow a sent message opened (an interactive Flow or a template's FLOW button). */
export class CompleteSandboxFlowDto {
  /** The wamid the sandbox answered the send with. */
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  message_id!: string;

  /** The answers the Flow's last screen returns (its `response_json`, with the message's flow_token). */
  @IsOptional()
  @IsObject()
  response?: Record<string, unknown>;
}
