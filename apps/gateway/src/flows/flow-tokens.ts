import { createHash, randomBytes } from 'node:crypto';
import { EventEnvelope, FLOW_TOKEN_PATTERN, InboundContent } from '@app/contracts';
import { Clock, PeriodicService } from '@app/server';
import { Injectable } from '@nestjs/common';
import { FlowTokensRepository } from './flow-tokens.repository';

/** How long a Flow send's token is kept: an answer submitted later is no longer joined to its message. */
export const FLOW_TOKEN_KEEP_DAYS = 30;
const PURGE_EVERY_MS = 3_600_000;
/** Tokens deleted per statement: every step of the purge is bounded. */
const PURGE_BATCH = 1_000;
const DAY_MS = 86_400_000;

/**
 * A Flow send's token: the same for a repeat of the same Idempotency-Key (`replayKey`), so a
 * replayed answer names the token that was sent; random otherwise.
 */
export function makeFlowToken(replayKey: string | null): string {
  const token = replayKey
    ? createHash('sha256').update(`flow-token\n${replayKey}`).digest().subarray(0, 16)
    : randomBytes(16);
  return `ft_${token.toString('base64url')}`;
}

/** The platform's flow token a submitted Flow (`reply.kind` flow) carries back; null for anything else. */
export function flowTokenOfAnswer(content: InboundContent | undefined): string | null {
  const reply = content?.reply;
  if (reply?.kind !== 'flow' || typeof reply.payload !== 'object' || reply.payload === null) return null;
  const token = (reply.payload as Record<string, unknown>).flow_token;
  return typeof token === 'string' && FLOW_TOKEN_PATTERN.test(token) ? token : null;
}

/**
 * Joins a submitted Flow to the message it answers: a `message.received` whose Flow answer carries
 * one of the platform's tokens gets that message's id as `reply.context_message_id`. Anything else,
 * and a token not (or no longer) known, is left as it is.
 */
@Injectable()
export class FlowAnswers extends PeriodicService<number> {
  constructor(
    private readonly tokens: FlowTokensRepository,
    private readonly clock: Clock,
  ) {
    super('flow token expiry', PURGE_EVERY_MS);
  }

  async join(event: EventEnvelope): Promise<void> {
    if (event.type !== 'message.received') return;
    const content = (event.data as { content?: InboundContent }).content;
    const token = flowTokenOfAnswer(content);
    if (!token || !content?.reply) return;
    const messageId = await this.tokens.messageOf(token);
    if (messageId) content.reply.context_message_id = messageId;
  }

  /** Records the message a token went out with. */
  remember(token: string, accountId: string, messageId: string): Promise<void> {
    return this.tokens.remember(token, accountId, messageId);
  }

  /** Deletes the tokens older than FLOW_TOKEN_KEEP_DAYS, a bounded batch at a time. */
  protected async pass(): Promise<number> {
    const before = new Date(this.clock.nowMs() - FLOW_TOKEN_KEEP_DAYS * DAY_MS);
    let purged = 0;
    for (;;) {
      const n = await this.tokens.purgeBefore(before, PURGE_BATCH);
      purged += n;
      if (n < PURGE_BATCH) return purged;
    }
  }
}
