import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { APPS_RPC, ApplySignalReply, RpcReply } from '@app/contracts';
import { rpcAnswer } from '@app/messaging';
import { AppSignalsService } from './app-signals.service';

/**
 * The gateway relays account signals of channel callbacks here, in order. A signal for no app or
 * one that says nothing is an answer (nothing changed); a database failure is thrown on, so the
 * gateway keeps the signal and tries again.
 */
@Controller()
export class AppSignalsRpcController {
  constructor(private readonly signals: AppSignalsService) {}

  @MessagePattern(APPS_RPC.applySignal)
  apply(@Payload() req: unknown): Promise<RpcReply<ApplySignalReply>> {
    return rpcAnswer(
      () => this.signals.apply(req),
      () => undefined,
    );
  }
}
