/** How one service connects to NATS: both the JetStream clients and the request/reply transport. */
export interface MessagingModuleOptions {
  url: string;
  prefix: string;
  /** The service name, shown in NATS connection lists. */
  name: string;
}

export const MESSAGING_OPTIONS = Symbol('MESSAGING_OPTIONS');
