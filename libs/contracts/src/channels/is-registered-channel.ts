import { ValidationOptions, registerDecorator } from 'class-validator';
import type { ChannelRegistration } from './registration';
import { channelNames, isRegisteredChannel } from './registry';

/**
 * The value (each value, with `each`) must name a registered channel that `accepts`. The registry is
 * read when the value is validated, so a channel registered at start is accepted; the message lists
 * the channels accepted then.
 */
export function IsRegisteredChannel(
  accepts: (r: ChannelRegistration) => boolean = () => true,
  options: ValidationOptions = {},
): PropertyDecorator {
  const names = channelNames(accepts);
  return (target, property) =>
    registerDecorator({
      name: 'isRegisteredChannel',
      target: target.constructor,
      propertyName: String(property),
      options: {
        message: ({ property: p }) =>
          `${options.each ? 'each value in ' : ''}${p} must be one of the following values: ${names.join(', ')}`,
        ...options,
      },
      validator: { validate: (value: unknown) => isRegisteredChannel(value, accepts) },
    });
}
