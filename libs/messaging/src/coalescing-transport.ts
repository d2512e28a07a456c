import { NatsConnectionImpl, setTransportFactory } from '@nats-io/nats-core/internal';
import type { ConnectionOptions, NatsConnection } from '@nats-io/nats-core';
import { NodeTransport, nodeResolveHost } from '@nats-io/transport-node/lib/node_transport';

/**
 * The Node transport of the NATS client, with its socket writes gathered per turn of the event
 * loop. The client writes what it has queued at the end of each microtask run, so every request
 * made from its own I/O callback (an HTTP request's publish, a message's acknowledgement after
 * its own database round trip) costs a system call, and the server a read and a reply of its own.
 * Here the socket is corked at the first write of a turn and uncorked once the turn's I/O
 * callbacks have run (`setImmediate`): what the turn produced leaves in one `writev`, and a write
 * waits at most for the rest of its own turn.
 */
export class CoalescingTransport extends NodeTransport {
  private corked = false;

  override _send(frame: Uint8Array): Promise<void> {
    if (!this.corked && this.socket && !this.isClosed) {
      const socket = this.socket;
      socket.cork();
      this.corked = true;
      setImmediate(() => {
        this.corked = false;
        socket.uncork();
      });
    }
    return super._send(frame);
  }
}

/**
 * `connect` of `@nats-io/transport-node`, over `CoalescingTransport`. The client's transport factory
 * is process-wide and read at every (re)connection; the services connect only through this.
 */
export function connectCoalescing(opts: ConnectionOptions): Promise<NatsConnection> {
  setTransportFactory({ factory: () => new CoalescingTransport(), dnsResolveFn: nodeResolveHost });
  return NatsConnectionImpl.connect(opts);
}
