import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Clock, counter, PeriodicJob } from '@app/server';
import { sha256BodySignature } from '@app/auth';
import { httpCall } from '@app/channels';
import { AnswerTooLargeError, TargetPolicy } from '@app/egress';
import { GatewayConfig } from '../config';
import { CredentialsBox } from '../connections/bot-channels';
import { ConnectionsRepository } from '../connections/connections.repository';
import { DEFAULT_EVENTS_PATH } from '../connections/connections.service';
import { CourseRepliesRepository } from './course-replies.repository';
import { noReplyPost } from './course-reply-posts';
import { COURSE_RETENTION_DAYS, CourseRepository, OutboxRow } from './course.repository';

/** Status events taken per pass (each of a different student). */
const BATCH = 20;
/** Expired events, message links and status events are purged this often. */
const PURGE_EVERY_MS = 60 * 60 * 1000;

const posts = () =>
  counter('course_status_posts_total', 'Status events posted to course platforms by outcome', ['outcome']);

/**
 * Posts the outbox's status events to each course platform (base_url + events_path), signed with
 * the connection's api key. One student's events go out one at a time in the order they were
 * queued: only the oldest pending event of a student is ever taken, and the next waits until it is
 * answered with 2xx (or abandoned after COURSE_EVENTS_RETRY_FOR_MS). A refused or unanswered post
 * is tried again after COURSE_EVENTS_RETRY_FIRST_DELAY_MS, doubling up to COURSE_EVENTS_RETRY_MAX_DELAY_MS.
 * The outbox is in the database, so a restart loses nothing. Each pass first ends the replies'
 * waits past their due time (`no_reply`, queued in the same transaction: the durable timer of
 * `wait_for_reply`). Also purges what is older than the 7 days of retention.
 */
@Injectable()
export class CourseOutboxWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('CourseOutbox');
  private readonly job: PeriodicJob<void>;
  private readonly purge: PeriodicJob<void>;

  constructor(
    private readonly course: CourseRepository,
    private readonly replies: CourseRepliesRepository,
    private readonly connections: ConnectionsRepository,
    private readonly credentials: CredentialsBox,
    private readonly config: GatewayConfig,
    private readonly targets: TargetPolicy,
    private readonly clock: Clock,
  ) {
    this.job = new PeriodicJob('course status events', config.COURSE_POLL_INTERVAL_MS, () => this.drain(), this.logger);
    this.purge = new PeriodicJob(
      'course retention',
      PURGE_EVERY_MS,
      async () => {
        const purged = {
          ...(await this.course.purgeExpired()),
          waits: await this.replies.purgeEnded(COURSE_RETENTION_DAYS),
        };
        if (purged.events + purged.messages + purged.outbox + purged.waits > 0)
          this.logger.log(purged, 'expired course records purged');
      },
      this.logger,
    );
  }

  onApplicationBootstrap(): void {
    this.job.start();
    this.purge.start();
    void this.purge.run().catch((err) => this.logger.warn({ err: String(err) }, 'course retention purge failed'));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job.stop();
    await this.purge.stop();
  }

  poke(): void {
    this.job.poke();
  }

  private async drain(): Promise<void> {
    // Waits past their due time become `no_reply` posts, each once (state and post in one transaction).
    while ((await this.replies.expireDue(this.clock.now(), BATCH, noReplyPost)).length === BATCH);
    for (;;) {
      const rows = await this.course.claimDueOutbox(BATCH, this.config.COURSE_EVENTS_TIMEOUT_MS + 30_000);
      await Promise.all(rows.map((r) => this.post(r)));
      // A delivered head makes the student's next event due at once.
      if (rows.length === 0) return;
    }
  }

  private async post(row: OutboxRow): Promise<void> {
    const connection = await this.connections.findById(row.connection_id);
    if (!connection || connection.state === 'disconnected' || !connection.credential || !connection.baseUrl) {
      posts().inc({ outcome: 'abandoned' });
      return this.course.finishOutbox(row.id, 'abandoned', 'the course connection was deleted');
    }
    const failure = await this.deliver(row, connection.baseUrl, connection.eventsPath, connection.credential);
    if (failure === null) {
      posts().inc({ outcome: 'delivered' });
      return this.course.finishOutbox(row.id, 'delivered', null);
    }
    const c = this.config;
    if (this.clock.nowMs() - new Date(row.created_at).getTime() >= c.COURSE_EVENTS_RETRY_FOR_MS) {
      posts().inc({ outcome: 'abandoned' });
      this.logger.warn({ outboxId: row.id, connectionId: row.connection_id, failure }, 'status event abandoned');
      return this.course.finishOutbox(row.id, 'abandoned', failure);
    }
    posts().inc({ outcome: 'retried' });
    const delay = Math.min(
      c.COURSE_EVENTS_RETRY_MAX_DELAY_MS,
      c.COURSE_EVENTS_RETRY_FIRST_DELAY_MS * 2 ** (row.attempts - 1),
    );
    await this.course.retryOutboxLater(row.id, delay, failure);
  }

  /**
   * One post of a status event: null when the platform took it, else why not. The URL passes the
   * target policy before every post and each connection's address at connect time (a name that
   * now resolves inside our network is refused); the answer is read to at most
   * COURSE_ANSWER_LIMIT_BYTES, so no platform's answer can fill the gateway's memory.
   */
  private async deliver(
    row: OutboxRow,
    baseUrl: string,
    eventsPath: string | null,
    credential: string,
  ): Promise<string | null> {
    const target = await this.targets.check(`${baseUrl}${eventsPath ?? DEFAULT_EVENTS_PATH}`);
    if (!target.ok) return `refused by the target policy: url ${target.reason}`;
    const signal = AbortSignal.timeout(this.config.COURSE_EVENTS_TIMEOUT_MS);
    const pool = this.targets.dispatcher();
    try {
      // Redirects are not followed: a 3xx is an answer that is not a success.
      const res = await httpCall(target.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'messaging-gateway-course/1',
          'X-Signature': sha256BodySignature(this.credentials.box.open(credential), row.body),
          'X-Delivery-Id': String(row.id),
        },
        body: row.body,
        signal,
        maxAnswerBytes: this.config.COURSE_ANSWER_LIMIT_BYTES,
        ...(pool ? { pool } : {}),
      });
      return res.ok ? null : `the platform answered ${res.status}`;
    } catch (err) {
      if (err instanceof AnswerTooLargeError) return `the platform's answer was larger than ${err.limitBytes} bytes`;
      if (signal.aborted) return 'the platform did not answer in time';
      if ((err as { code?: unknown })?.code === 'EADDRNOTPUBLIC')
        return 'refused by the target policy: url must not resolve to a private or local address';
      return 'the platform could not be reached';
    }
  }
}
