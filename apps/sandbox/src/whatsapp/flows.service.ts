import { Injectable } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import { GraphFlow, GraphPage } from '@app/channels';
import { graphErrors, GraphError } from './graph-error';

export type SandboxFlowStatus = 'DRAFT' | 'PUBLISHED' | 'DEPRECATED';

export interface SandboxFlow {
  id: string;
  waba_id: string;
  name: string;
  status: SandboxFlowStatus;
  categories: string[];
}

/** Graph's page size of a Flow listing when none is asked for, and its cap. */
const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 100;

/**
 * WhatsApp Flows of every WABA, kept in memory (docs/sandbox.md, Flows): listed a page at a time
 * as `GET /{waba_id}/flows` answers, published as `POST /{flow_id}/publish` does (only a DRAFT;
 * a published or deprecated Flow is refused with Graph's error).
 */
@Injectable()
export class SandboxFlowsService {
  private readonly flows = new Map<string, SandboxFlow>();

  create(input: { waba_id: string; name: string; status?: SandboxFlowStatus; categories?: string[] }): SandboxFlow {
    if ([...this.flows.values()].some((f) => f.waba_id === input.waba_id && f.name === input.name)) {
      throw graphErrors.invalidParameter(`Flow name is not unique: ${input.name}`);
    }
    const flow: SandboxFlow = {
      id: String(1_000_000_000_000_000 + randomInt(0, 2 ** 48 - 1)),
      waba_id: input.waba_id,
      name: input.name,
      status: input.status ?? 'DRAFT',
      categories: input.categories ?? ['OTHER'],
    };
    this.flows.set(flow.id, flow);
    return flow;
  }

  /** A page of the WABA's Flows in creation order; `after` is the previous page's cursor. */
  list(wabaId: string, query: Record<string, string | undefined>): GraphPage<GraphFlow> {
    const limit = Math.min(Math.max(Number(query.limit) || DEFAULT_LIMIT, 1), MAX_LIMIT);
    const start = query.after ? Number(Buffer.from(query.after, 'base64url').toString()) : 0;
    if (!Number.isInteger(start) || start < 0) throw graphErrors.invalidParameter('after is not a valid cursor');
    const all = [...this.flows.values()].filter((f) => f.waba_id === wabaId);
    const page = all.slice(start, start + limit);
    const cursor = (n: number) => Buffer.from(String(n)).toString('base64url');
    const more = start + limit < all.length;
    return {
      data: page.map((f) => ({ id: f.id, name: f.name, status: f.status, categories: f.categories })),
      paging: {
        cursors: { before: cursor(start), after: cursor(start + page.length) },
        ...(more ? { next: `flows?after=${cursor(start + page.length)}` } : {}),
      },
    };
  }

  get(id: string): SandboxFlow | undefined {
    return this.flows.get(id);
  }

  /** DRAFT -> PUBLISHED; any other status is refused as Graph refuses it. */
  publish(id: string): { success: true } {
    const flow = this.flows.get(id);
    if (!flow) throw graphErrors.objectMissing(id);
    if (flow.status !== 'DRAFT') {
      throw new GraphError(
        400,
        139002,
        '(#139002) Publishing Flow in invalid state',
        `Only a Flow in DRAFT can be published; this one is ${flow.status}.`,
      );
    }
    flow.status = 'PUBLISHED';
    return { success: true };
  }

  /** Marks a Flow deprecated (a published Flow taken out of use). */
  deprecate(id: string): SandboxFlow | undefined {
    const flow = this.flows.get(id);
    if (flow) flow.status = 'DEPRECATED';
    return flow;
  }

  all(): SandboxFlow[] {
    return [...this.flows.values()];
  }

  clear(): void {
    this.flows.clear();
  }
}
