import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

export class CreateAppDto {
  @ApiProperty({ minLength: 5, maxLength: 150, example: 'Acme support' })
  @IsString()
  @Length(5, 150)
  name: string;
}
