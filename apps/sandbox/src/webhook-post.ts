import { httpClient } from '@app/channels';

/**
 * How the emulated channels call webhooks: kept-alive connections, at most 64 to one receiver, as a
 * channel's bounded sender pool would. A receiver that falls behind then sees calls waiting their
 * turn (each still within its attempt timeout), not a flood of new connections.
 */
export const webhookPost = httpClient({ connections: 64 });
