import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldError, ValidationProblem } from './problem';
import { memoizeValidationMetadata } from './validation-metadata';

/**
 * Bounds on what reaches class-transformer and class-validator. Both walk a value recursively and
 * build an object (and, on failure, an error) per item, so an unbounded value costs a stack overflow
 * (deep nesting) or seconds of a blocked event loop and a multi-megabyte answer (a huge array). No
 * request of the platform comes near these: the deepest body (a template send) has 7 levels, the
 * longest list 10 items.
 */
export const INPUT_LIMITS = {
  /** Levels of nesting, the outermost object or array counting as 1. */
  depth: 16,
  /** Items of one array. */
  arrayItems: 100,
  /** Keys of one object. */
  objectKeys: 100,
  /** Values in the whole input (objects, arrays, strings, numbers, ...). */
  values: 2000,
  /** Field errors listed in one answer; the detail says how many more there were. */
  listedErrors: 20,
} as const;

const MAX_FIELD_LENGTH = 200;
const MAX_MESSAGE_LENGTH = 300;

/** A UTF-16 surrogate without its pair: not a Unicode character, so not encodable as UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const storable = (s: string): boolean => !s.includes('\u0000') && !LONE_SURROGATE.test(s);

const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const join = (parent: string, key: string): string => (parent ? `${parent}.${key}` : key);

/**
 * The first reason `value` may not be validated at all, or null: too deep, too many items, or a
 * string PostgreSQL cannot store (U+0000) or that is not Unicode (a lone surrogate, which also
 * makes validator.js throw). Iterative, so the depth it refuses cannot overflow the stack here.
 */
export function findUnboundedInput(value: unknown, root = ''): FieldError | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  let seen = 0;
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
    const field = path || 'body';
    if (++seen > INPUT_LIMITS.values) {
      return { field: 'body', message: `the request may hold at most ${INPUT_LIMITS.values} values` };
    }
    if (typeof v === 'string') {
      if (!storable(v)) return { field, message: `${field} must be valid Unicode text without U+0000` };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > INPUT_LIMITS.depth) {
      return { field, message: `the request may be nested at most ${INPUT_LIMITS.depth} levels deep` };
    }
    if (Array.isArray(v)) {
      if (v.length > INPUT_LIMITS.arrayItems) {
        return { field, message: `${field} must contain no more than ${INPUT_LIMITS.arrayItems} elements` };
      }
      for (let i = v.length - 1; i >= 0; i--)
        stack.push({ value: v[i], path: join(path, String(i)), depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(v);
    if (keys.length > INPUT_LIMITS.objectKeys) {
      return { field, message: `${field} may have at most ${INPUT_LIMITS.objectKeys} properties` };
    }
    // Pushed last to first, so the first field of the input is the one reported.
    for (const key of keys.reverse()) {
      if (!storable(key)) {
        return { field, message: `property names must be valid Unicode without U+0000` };
      }
      stack.push({ value: (v as Record<string, unknown>)[key], path: join(path, key), depth: depth + 1 });
    }
  }
  return null;
}

/** Flattens class-validator errors into `{ field, message }` with dotted paths (`template.name`). */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  // Depth-first in the errors' order; iterative, as the depth of errors follows the input's.
  const stack = [...errors].reverse().map((error) => ({ error, parent }));
  while (stack.length > 0) {
    const { error, parent: p } = stack.pop() as { error: ValidationError; parent: string };
    const field = join(p, error.property);
    for (const message of Object.values(error.constraints ?? {})) out.push({ field, message });
    const children = error.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ error: children[i], parent: field });
  }
  return out;
}

/**
 * The validation problem for a list of field errors: at most INPUT_LIMITS.listedErrors of them,
 * each clipped (an unknown property's name is echoed in its message), so the answer stays small
 * whatever the request.
 */
export function validationProblemOf(errors: FieldError[]): ValidationProblem {
  const listed = errors.slice(0, INPUT_LIMITS.listedErrors).map((e) => ({
    field: clip(e.field, MAX_FIELD_LENGTH),
    message: clip(e.message, MAX_MESSAGE_LENGTH),
  }));
  const more = errors.length - listed.length;
  return new ValidationProblem(
    listed,
    more > 0 ? `The request is not valid; ${more} more errors are not listed.` : undefined,
  );
}

/** Nest's ValidationPipe, behind a bounds check of the raw value (see INPUT_LIMITS). */
export class BoundedValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'custom') {
      const root = metadata.type === 'body' ? '' : (metadata.data ?? '');
      const refused = findUnboundedInput(value, root);
      if (refused) return Promise.reject(validationProblemOf([refused]));
    }
    return super.transform(value, metadata) as Promise<unknown>;
  }
}

/**
 * Strict DTO validation: unknown fields are refused, types are not coerced for bodies, and every
 * failure becomes a 400 problem with field-level errors.
 */
export function createValidationPipe(): ValidationPipe {
  memoizeValidationMetadata();
  return new BoundedValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    forbidUnknownValues: true,
    stopAtFirstError: false,
    exceptionFactory: (errors) => validationProblemOf(flattenValidationErrors(errors)),
  });
}
