/**
 * Jest global setup: the suites use DATABASE_URL and NATS_URL when they are set (CI and these
 * machines); otherwise Postgres and NATS are started in containers for the run.
 */
export default async function globalSetup(): Promise<void> {
  const started: { stop(): Promise<unknown> }[] = [];
  if (!process.env.DATABASE_URL) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const pg = await new PostgreSqlContainer('postgres:15-alpine')
      .withUsername('postgres')
      .withPassword('postgres')
      .start();
    process.env.DATABASE_URL = pg.getConnectionUri();
    started.push(pg);
  }
  if (!process.env.NATS_URL) {
    const { GenericContainer, Wait } = await import('testcontainers');
    const nats = await new GenericContainer('nats:2.9-alpine')
      .withCommand(['-js'])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start();
    process.env.NATS_URL = `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`;
    started.push(nats);
  }
  (globalThis as { __testContainers?: typeof started }).__testContainers = started;
}
