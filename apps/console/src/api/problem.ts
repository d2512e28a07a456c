/** An RFC 9457 problem body as the gateway answers errors. */
export interface Problem {
  type?: string;
  title?: string;
  status: number;
  detail?: string;
  errors?: { field?: string; message?: string }[];
  /** A 403 for the console user's role: the role the change needs. */
  required_role?: string;
}

/** A failed request: its problem body (or one made from the status when the body was not a problem). */
export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title ?? `HTTP ${problem.status}`);
  }
}

/** The problem a response carries, or one made from its status line. */
export async function problemOf(res: Response): Promise<Problem> {
  try {
    const body = (await res.clone().json()) as Partial<Problem>;
    if (body && typeof body === 'object') return { ...body, status: body.status ?? res.status };
  } catch {
    // Not JSON: described by its status alone.
  }
  return { status: res.status, title: res.statusText || `HTTP ${res.status}` };
}
