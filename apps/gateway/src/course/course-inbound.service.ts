import { Injectable, Logger } from '@nestjs/common';
import { constantTimeEqual, hashToken } from '@app/auth';
import { counter, ProblemError, ValidationProblem } from '@app/server';
import { ConnectionsRepository } from '../connections/connections.repository';
import { eventKeyOf, eventTypeOf } from './course-body';
import { CourseProcessor } from './course-processor';
import { CourseRepository } from './course.repository';
import { isUuid } from '@app/contracts';

/** 401 for a course callback without the connection's secret (or for no such live course connection). */
export class InvalidCourseSecretProblem extends ProblemError {
  constructor() {
    super(401, 'invalid-secret', 'Invalid secret', 'X-Course-Secret is missing or does not match the connection.');
  }
}

const callbacks = () => counter('course_callbacks_total', 'Course platform callbacks by outcome', ['outcome']);

export interface CourseCallbackAnswer {
  /** Our id of the stored event (see GET /v1/course/events). */
  id: string;
  /** The event's identity: its id or event_id field, else sha256: and the hash of its body. */
  event_id: string;
  type: string | null;
  status: string;
  /** True when the same event was received before (it is not processed again). */
  duplicate: boolean;
}

/**
 * A course platform's "process" callback: the connection's secret checked in constant time, the
 * event stored once per identity and answered at once; rules and sends happen afterwards in the
 * CourseProcessor, so the platform never waits for the api.
 */
@Injectable()
export class CourseInboundService {
  private readonly logger = new Logger('CourseInbound');

  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly course: CourseRepository,
    private readonly processor: CourseProcessor,
  ) {}

  async receive(connectionId: string, secret: string | undefined, body: unknown): Promise<CourseCallbackAnswer> {
    const connection = isUuid(connectionId) ? await this.connections.findById(connectionId.toLowerCase()) : null;
    if (
      !connection ||
      connection.channel !== 'course' ||
      connection.state === 'disconnected' ||
      !connection.inboundSecretHash ||
      typeof secret !== 'string' ||
      !constantTimeEqual(hashToken(secret), connection.inboundSecretHash)
    ) {
      callbacks().inc({ outcome: 'bad_secret' });
      throw new InvalidCourseSecretProblem();
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      callbacks().inc({ outcome: 'invalid' });
      throw new ValidationProblem(
        [{ field: 'body', message: 'the event must be a JSON object or a form-encoded body' }],
        'The event is not valid.',
      );
    }
    const event = body as Record<string, unknown>;
    const { row, created } = await this.course.insertEvent({
      connectionId: connection.id,
      accountId: connection.accountId,
      eventKey: eventKeyOf(event),
      type: eventTypeOf(event),
      body: event,
    });
    callbacks().inc({ outcome: created ? 'stored' : 'duplicate' });
    if (created) this.processor.poke();
    else this.logger.debug({ connectionId: connection.id, eventId: row.id }, 'a repeated course event');
    return { id: row.id, event_id: row.event_key, type: row.type, status: row.status, duplicate: !created };
  }
}
