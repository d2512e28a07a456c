export { SendingModule } from './sending.module';
export { MessagesService } from './messages.service';
export type { PreparedSend } from './messages.service';
export { GatewaySendsService, resolvedSend } from './gateway-sends';
export { FailoverService } from './failover.service';
export type { AttemptWrite, RouteAttempt } from './failover.service';
export { SendWithdrawal } from './send-withdrawal';
export { TierWindowRepository } from './tier-window';
export type { SendableTemplate } from './template-message';
