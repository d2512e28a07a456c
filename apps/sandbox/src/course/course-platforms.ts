import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { constantTimeEqual, sha256BodySignature } from '@app/auth';
import { SandboxConfig } from '../config';
import { RecordWindow } from '../record-window';
import { SandboxClock } from '../whatsapp/sandbox-clock';

/** What the receiver's fault switch makes it answer: 500, no answer at all, or a slow 200. */
export type CourseFaultMode = '500' | 'hang' | 'slow';

export interface CourseFault {
  mode: CourseFaultMode;
  /** Requests still to answer with the fault; null: until cleared. */
  remaining: number | null;
  /** slow: how long each answer waits. */
  delay_ms: number;
}

/** One status event the platform received. */
export interface ReceivedCourseEvent {
  seq: number;
  received_at: string;
  path: string;
  signature: string | null;
  /** X-Signature is `sha256=` and the hex HMAC-SHA256 of the exact body under the platform's api key. */
  signature_valid: boolean;
  body: unknown;
  /** accepted: answered 200; fault: answered by the fault switch (500, or never). */
  outcome: 'accepted' | 'fault';
  http_status: number | null;
}

export interface EmulatedCoursePlatform {
  id: string;
  api_key: string;
  /** The most recent events received (SANDBOX_RECORDS_MAX). */
  events: RecordWindow<ReceivedCourseEvent>;
  fault: CourseFault | null;
}

/** Emulated course platforms: their api keys, the status events they received, their fault switches. */
@Injectable()
export class CoursePlatforms {
  private readonly platforms = new Map<string, EmulatedCoursePlatform>();
  private seq = 0;

  constructor(
    private readonly clock: SandboxClock,
    private readonly config: SandboxConfig,
  ) {}

  create(apiKey: string): EmulatedCoursePlatform {
    const p: EmulatedCoursePlatform = {
      id: randomUUID(),
      api_key: apiKey,
      events: new RecordWindow(this.config.SANDBOX_RECORDS_MAX),
      fault: null,
    };
    this.platforms.set(p.id, p);
    return p;
  }

  get(id: string): EmulatedCoursePlatform | undefined {
    return this.platforms.get(id);
  }

  setFault(p: EmulatedCoursePlatform, fault: { mode: CourseFaultMode; count: number | null; delay_ms: number }) {
    p.fault = { mode: fault.mode, remaining: fault.count, delay_ms: fault.delay_ms };
    return p.fault;
  }

  /**
   * A status event posted to the platform: recorded with whether its signature holds, and answered
   * as the fault switch says (a `hang` holds the request open until the client gives up or the
   * sandbox stops).
   */
  async receive(
    p: EmulatedCoursePlatform,
    path: string,
    raw: Buffer,
    signature: string | undefined,
  ): Promise<{ status: number | null }> {
    const fault = this.takeFault(p);
    let status: number | null = 200;
    if (fault?.mode === 'hang') {
      await this.clock.untilStopped().promise;
      status = null;
    } else if (fault?.mode === '500') {
      status = 500;
    } else if (fault?.mode === 'slow') {
      await this.clock.sleep(fault.delay_ms);
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      body = raw.toString('utf8');
    }
    p.events.push({
      seq: ++this.seq,
      received_at: new Date().toISOString(),
      path,
      signature: signature ?? null,
      signature_valid: verify(p.api_key, raw, signature),
      body,
      outcome: status === 200 ? 'accepted' : 'fault',
      http_status: status,
    });
    return { status };
  }

  private takeFault(p: EmulatedCoursePlatform): CourseFault | null {
    const f = p.fault;
    if (!f) return null;
    if (f.remaining !== null) {
      f.remaining -= 1;
      if (f.remaining <= 0) p.fault = null;
    }
    return f;
  }
}

function verify(apiKey: string, raw: Buffer, signature: string | undefined): boolean {
  return !!signature && constantTimeEqual(signature, sha256BodySignature(apiKey, raw));
}
