import { Injectable } from '@nestjs/common';
import { Topology } from '@app/contracts';
import { DeliveryStateStore, NatsClients } from '@app/messaging';

/**
 * The api's word to the queue that an accepted message is no longer to be sent: a `withdrawn` mark
 * in the delivery-state bucket, which the queue reads before it calls the channel. A message the
 * api fails before the queue sent it (no receipt for too long) is then never sent later for free.
 */
@Injectable()
export class SendWithdrawal {
  private store?: Promise<DeliveryStateStore>;

  constructor(
    private readonly clients: NatsClients,
    private readonly topology: Topology,
  ) {}

  /**
   * True when the queue will never hand the message to its channel; false when a channel call
   * started or ended already (then the message's own events settle it). Throws while NATS is
   * unreachable: nothing can be known then.
   */
  async withdraw(messageId: string, code: string): Promise<boolean> {
    this.store ??= DeliveryStateStore.open(this.clients.js, this.topology).catch((err: unknown) => {
      this.store = undefined;
      throw err;
    });
    return (await this.store).withdraw(messageId, code);
  }
}
