import { IsIn, IsInt, IsString, Max, Min, registerDecorator } from 'class-validator';
import {
  BaseConfig,
  DEV_CREDENTIALS_KEYS,
  hasDevelopmentKey,
  ChannelSettingsReader,
  IsCredentialsKeys,
  Secret,
} from '@app/config';
import { Channel, CHANNELS, connectsWithBot, isRegisteredChannel } from '@app/contracts';

/** CHANNELS: a comma-separated list of registered channels, read when the configuration is validated. */
function IsChannelList(): PropertyDecorator {
  return (target, property) =>
    registerDecorator({
      name: 'isChannelList',
      target: target.constructor,
      propertyName: String(property),
      options: { message: () => `CHANNELS must be a comma-separated list of ${CHANNELS.join(', ')}` },
      validator: {
        validate: (v: unknown) => typeof v === 'string' && v.split(',').every((c) => isRegisteredChannel(c)),
      },
    });
}

/**
 * The queue's variables. Each registered channel's settings (its API URL, token, timeout and pacing,
 * docs/channels.md) are declared by its registration and read with `channelSettings`.
 */
export class QueueConfig extends BaseConfig implements ChannelSettingsReader {
  static readonly channelService = 'queue';

  @IsInt()
  @Min(1)
  @Max(65535)
  QUEUE_PORT: number = 3200;

  /** Channels this replica delivers to (one Deployment per channel in production). */
  @IsString()
  @IsChannelList()
  CHANNELS: string = CHANNELS.join(',');

  /** Messages of one channel handled at the same time (each channel has its own). */
  @IsInt()
  @Min(1)
  @Max(1000)
  QUEUE_CONCURRENCY: number = 20;

  /** Exponential backoff of a transient failure: first delay, doubled per delivery up to the max. */
  @IsInt()
  @Min(10)
  @Max(3_600_000)
  QUEUE_BACKOFF_BASE_MS: number = 2000;

  @IsInt()
  @Min(10)
  @Max(86_400_000)
  QUEUE_BACKOFF_MAX_MS: number = 300_000;

  /**
   * After a worker died during a channel call, how long past that call's timeout a redelivered
   * message waits for a provider callback proving it was sent before it is sent again.
   */
  @IsInt()
  @Min(0)
  @Max(600_000)
  QUEUE_UNCERTAIN_GRACE_MS: number = 10_000;

  /** Consecutive transient failures of one channel after which the whole channel pauses. */
  @IsInt()
  @Min(1)
  @Max(1000)
  QUEUE_CHANNEL_FAILURE_THRESHOLD: number = 5;

  get channelList(): Channel[] {
    return this.CHANNELS.split(',') as Channel[];
  }

  servesChannel(channel: string): boolean {
    return this.channelList.includes(channel as Channel);
  }

  /** Opens the bot tokens that bot messages carry sealed; the gateway's CREDENTIALS_KEYS. */
  @Secret({
    when: (c: QueueConfig) => c.channelList.some((ch) => isRegisteredChannel(ch, connectsWithBot)),
    development: hasDevelopmentKey,
  })
  @IsCredentialsKeys()
  CREDENTIALS_KEYS: string = DEV_CREDENTIALS_KEYS;

  /**
   * `true` lets addresses a tenant chose (media URLs that MAX messages upload) be plain HTTP and private or loopback
   * addresses: local receivers in development and tests (`pnpm stack`). Anything else keeps the
   * SSRF protection on, whatever NODE_ENV says.
   */
  @IsIn(['true', 'false'])
  ALLOW_PRIVATE_TARGETS: string = 'false';

  get allowPrivateTargets(): boolean {
    return this.ALLOW_PRIVATE_TARGETS === 'true';
  }
}
