import { WINDOW_CLOSED, WINDOW_CLOSED_TEMPLATES_MAX, WindowClosedTemplate } from '@app/contracts';
import { UnprocessableProblem } from '@app/server';
import { SendableTemplatesRepository } from './sendable-templates.repository';

/**
 * 422 `/problems/window-closed`: a free-form WhatsApp message to a recipient who has not written to
 * the app in the last 24 hours, refused before anything is held; `templates` names approved
 * templates of the app (at most WINDOW_CLOSED_TEMPLATES_MAX) that could be sent instead.
 */
export class WindowClosedProblem extends UnprocessableProblem {
  constructor(readonly templates: WindowClosedTemplate[]) {
    super(
      WINDOW_CLOSED,
      'Window closed',
      'The customer has not written in the last 24 hours: only a template can be sent on WhatsApp now.',
      { templates },
    );
  }
}

/** The window-closed refusal of a send from this app, naming its approved templates. */
export async function windowClosed(
  templates: SendableTemplatesRepository,
  appId: number,
): Promise<WindowClosedProblem> {
  return new WindowClosedProblem(await templates.approvedOf(appId, WINDOW_CLOSED_TEMPLATES_MAX));
}
