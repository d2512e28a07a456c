import { ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldError, ValidationProblem } from './problem';

/** Flattens class-validator errors into `{ field, message }` with dotted paths (`template.name`). */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flattenValidationErrors(e.children ?? [], field)];
  });
}

/**
 * Strict DTO validation: unknown fields are refused, types are not coerced for bodies, and every
 * failure becomes a 400 problem with field-level errors.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    forbidUnknownValues: true,
    stopAtFirstError: false,
    exceptionFactory: (errors) => new ValidationProblem(flattenValidationErrors(errors)),
  });
}
