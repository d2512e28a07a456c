import { Module } from '@nestjs/common';
import { WhatsAppSignup } from '@app/channels';
import { channelSettings } from '@app/config';
import { WHATSAPP_CHANNEL } from '@app/contracts';
import { GatewayConfig } from '../config';
import { SignupController } from './signup.controller';

const signupSettings = (config: GatewayConfig) => {
  const { graphUrl, apiVersion, timeoutMs } = channelSettings(config, WHATSAPP_CHANNEL);
  return { graphUrl, apiVersion, timeoutMs };
};

/** WhatsApp embedded signup, served to the api over request/reply. */
@Module({
  controllers: [SignupController],
  providers: [
    {
      provide: WhatsAppSignup,
      inject: [GatewayConfig],
      useFactory: (config: GatewayConfig) =>
        new WhatsAppSignup({
          ...signupSettings(config),
          appId: config.WHATSAPP_APP_ID,
          appSecret: config.WHATSAPP_APP_SECRET,
          twoStepPin: config.WHATSAPP_TWO_STEP_PIN,
        }),
    },
  ],
})
export class SignupModule {}
