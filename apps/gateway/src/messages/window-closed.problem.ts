import { RpcProblem, WINDOW_CLOSED, WindowClosedTemplate } from '@app/contracts';
import { UnprocessableProblem } from '@app/server';

/**
 * 422 `/problems/window-closed`: a free-form WhatsApp message to a customer who has not written in
 * the last 24 hours. Nothing was held; `templates` names (at most 20) approved templates of the app
 * that could be sent instead.
 */
export class WindowClosedProblem extends UnprocessableProblem {
  constructor(
    readonly templates: WindowClosedTemplate[],
    detail = 'The customer has not written in the last 24 hours: only a template can be sent on WhatsApp now.',
  ) {
    super(WINDOW_CLOSED, 'Window closed', detail, { templates });
  }
}

/** The api's window-closed refusal as the gateway's WindowClosedProblem; null for any other problem. */
export function windowClosedOf(problem: RpcProblem): WindowClosedProblem | null {
  if (problem.slug !== WINDOW_CLOSED) return null;
  const templates = problem.extensions?.templates;
  return new WindowClosedProblem(Array.isArray(templates) ? (templates as WindowClosedTemplate[]) : [], problem.detail);
}
