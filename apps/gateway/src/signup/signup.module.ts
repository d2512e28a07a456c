import { Module } from '@nestjs/common';
import { WhatsAppSignup } from '@app/channels';
import { GatewayConfig } from '../config';
import { SignupController } from './signup.controller';

/** WhatsApp embedded signup, served to the api over request/reply. */
@Module({
  controllers: [SignupController],
  providers: [
    {
      provide: WhatsAppSignup,
      inject: [GatewayConfig],
      useFactory: (config: GatewayConfig) =>
        new WhatsAppSignup({
          graphUrl: config.WHATSAPP_GRAPH_URL,
          apiVersion: config.WHATSAPP_API_VERSION,
          timeoutMs: config.WHATSAPP_TIMEOUT_MS,
          appId: config.WHATSAPP_APP_ID,
          appSecret: config.WHATSAPP_APP_SECRET,
          twoStepPin: config.WHATSAPP_TWO_STEP_PIN,
        }),
    },
  ],
})
export class SignupModule {}
