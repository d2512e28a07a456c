import { ClientNats, NatsOptions, ServerNats } from '@nestjs/microservices';

type NatsTransportOptions = NatsOptions['options'];

/**
 * The @nestjs/microservices NATS server with every subscribed pattern under the topology prefix,
 * so that suites sharing a NATS server never answer each other's requests.
 */
export class PrefixedServerNats extends ServerNats {
  constructor(
    options: NatsTransportOptions,
    private readonly prefix: string,
  ) {
    super(options ?? {});
  }

  override bindEvents(client: Parameters<ServerNats['bindEvents']>[0]): void {
    const prefix = this.prefix;
    const proxy = new Proxy(client, {
      get(target, prop, receiver) {
        if (prop === 'subscribe') {
          return (subject: string, opts: unknown) =>
            (target as { subscribe: (s: string, o: unknown) => unknown }).subscribe(
              prefix ? `${prefix}.${subject}` : subject,
              opts,
            );
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    super.bindEvents(proxy);
  }
}

/** The matching client: patterns it sends are put under the same prefix. */
export class PrefixedClientNats extends ClientNats {
  private readonly prefix: string;

  constructor(options: NatsTransportOptions & { prefix?: string }) {
    super(options ?? {});
    this.prefix = options?.prefix ?? '';
  }

  protected override normalizePattern(pattern: unknown): string {
    const subject = super.normalizePattern(pattern as string);
    return this.prefix ? `${this.prefix}.${subject}` : subject;
  }
}
