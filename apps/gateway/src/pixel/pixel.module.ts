import { Module } from '@nestjs/common';
import { SecretBox } from '@app/auth';
import { Clock } from '@app/server';
import { GatewayConfig } from '../config';
import { PublicRateLimitModule } from '../public-rate-limit/public-rate-limit.guard';
import { PixelController } from './pixel.controller';
import { PixelOpensService } from './pixel-opens.service';
import { PixelTokens } from './pixel-token';

/** The tracking pixel: its URL on the message report, the public GIF and the recording of opens. */
@Module({
  imports: [PublicRateLimitModule],
  controllers: [PixelController],
  providers: [
    {
      provide: PixelTokens,
      useFactory: (config: GatewayConfig) => new PixelTokens(SecretBox.fromSpec(config.CREDENTIALS_KEYS)),
      inject: [GatewayConfig],
    },
    Clock,
    PixelOpensService,
  ],
  exports: [PixelOpensService],
})
export class PixelModule {}
