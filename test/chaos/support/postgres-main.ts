// The chaos suite's own PostgreSQL, in a child process it can stop and start again: the embedded
// PostgreSQL of `pnpm stack`, data in the directory given, on the port given. SIGTERM (or the
// parent's death) stops the database with a fast shutdown, then this process.
import { startEmbeddedPostgres } from '@app/testing';

const [dir, port] = process.argv.slice(2);

startEmbeddedPostgres({ dir, port: Number(port), database: 'chaos', persistent: true }).then(
  (pg) => {
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      void pg.stop().finally(() => process.exit(0));
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    // A suite that dies without stopping us must not leave a database running.
    const parent = process.ppid;
    setInterval(() => process.ppid !== parent && stop(), 1000).unref();
    process.stdout.write(`postgres ready ${pg.url}\n`);
  },
  (err: unknown) => {
    process.stderr.write(`postgres did not start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
