/**
 * How every service's Node process starts, wherever it runs: the image's CMD (deploy/Dockerfile,
 * checked by test/deploy/compose.test.ts), `pnpm stack`, the chaos suite and the benchmarks.
 * Source maps for stack traces, and a heap bounded for the containers' 256-384 MiB limits: an old
 * generation of at most 256 MiB (V8's defaults grow the heap with throughput: 340 MiB for the api
 * through the accept benchmark). It was 144 MiB until 16 dense bodies at once exhausted the
 * gateway's heap in test/fuzz/hostile-bodies.test.ts: each idle keep-alive connection held its last
 * parsed body through the request's logging context, which no longer keeps the request after its
 * answer (libs/server/src/logging.ts); the suite now passes at 144 MiB too, and 256 MiB leaves
 * room that tenant-floods has not been measured without. Young semi-spaces are 8 MiB. On the status path objects live
 * across a few event-loop turns (a message's events wait in groups for their transaction); with
 * semi-spaces of 4 MiB they were promoted to the old generation, and collecting garbage took 14-18 %
 * of each status-path service's CPU profile. 8 MiB bring that to 8-12 % for 8 MiB more per service
 * (the api 163 MiB through the accept benchmark); 16 MiB to 7-11 % for 25 MiB more
 * (docs/performance-journal.md, "Third pass").
 */
export const SERVICE_NODE_FLAGS: readonly string[] = [
  '--enable-source-maps',
  '--max-old-space-size=256',
  '--max-semi-space-size=8',
];
