import { Provider } from '@nestjs/common';
import { WhatsAppConnector } from '@app/channels';
import { channelSettings } from '@app/config';
import { WHATSAPP_CHANNEL } from '@app/contracts';
import { GatewayConfig } from '../config';

/** The gateway's WhatsApp connector: one BSP access token for every WABA. */
export const whatsAppConnectorProvider: Provider = {
  provide: WhatsAppConnector,
  inject: [GatewayConfig],
  useFactory: (config: GatewayConfig) => {
    const { graphUrl, apiVersion, accessToken, timeoutMs } = channelSettings(config, WHATSAPP_CHANNEL);
    return new WhatsAppConnector({ graphUrl, apiVersion, accessToken, timeoutMs });
  },
};
