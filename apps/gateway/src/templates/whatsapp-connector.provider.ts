import { Provider } from '@nestjs/common';
import { WhatsAppConnector } from '@app/channels';
import { GatewayConfig } from '../config';

/** The gateway's WhatsApp connector: one BSP access token for every WABA. */
export const whatsAppConnectorProvider: Provider = {
  provide: WhatsAppConnector,
  inject: [GatewayConfig],
  useFactory: (config: GatewayConfig) =>
    new WhatsAppConnector({
      graphUrl: config.WHATSAPP_GRAPH_URL,
      apiVersion: config.WHATSAPP_API_VERSION,
      accessToken: config.WHATSAPP_ACCESS_TOKEN,
      timeoutMs: config.WHATSAPP_TIMEOUT_MS,
    }),
};
