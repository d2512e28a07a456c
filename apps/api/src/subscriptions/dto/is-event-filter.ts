import { registerDecorator, ValidationOptions } from 'class-validator';
import { EVENT_TYPES, normalizeEventFilter } from '@app/contracts';

/** `"*"` or a non-empty list of event types (which may contain `"*"`). */
export function IsEventFilter(options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isEventFilter',
      target: object.constructor,
      propertyName,
      options: {
        message: `${propertyName} must be "*" or a non-empty list of event types (${EVENT_TYPES.join(', ')}, or "*")`,
        ...options,
      },
      validator: { validate: (v: unknown) => normalizeEventFilter(v) !== null },
    });
}
