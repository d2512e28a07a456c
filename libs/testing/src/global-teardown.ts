export default async function globalTeardown(): Promise<void> {
  const started = (globalThis as { __testContainers?: { stop(): Promise<unknown> }[] }).__testContainers ?? [];
  for (const c of started) await c.stop();
}
