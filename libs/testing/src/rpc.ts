import type { RpcProblem } from '@app/contracts';
import { RpcProblemError } from '@app/messaging';

/** The problem a request/reply call was answered with; fails the test if the call succeeded. */
export async function rpcProblem(call: Promise<unknown>): Promise<RpcProblem> {
  const err = await call.then(
    (result) => new Error(`expected a problem, got ${JSON.stringify(result)}`),
    (e: unknown) => e,
  );
  if (!(err instanceof RpcProblemError)) throw err;
  return err.problem;
}
