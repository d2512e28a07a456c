import { Body, Controller, Get, HttpCode, Param, Post, Query, UseFilters, UseGuards } from '@nestjs/common';
import { GraphFlow, GraphPage } from '@app/channels';
import { NotFoundProblem, UnprocessableProblem } from '@app/server';
import { CompleteSandboxFlowDto, CreateSandboxFlowDto } from './dto/sandbox-flow.dto';
import { GraphAuthGuard } from './graph-auth.guard';
import { GraphErrorFilter } from './graph-error';
import { SandboxFlow, SandboxFlowsService } from './flows.service';
import { GraphMessagesService } from './messages.service';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});

/** The flow token a sent message carries: an interactive Flow's, or its template's FLOW button's. */
export function flowTokenOfSend(body: unknown): string | null {
  const b = obj(body);
  const interactive = obj(b.interactive);
  if (b.type === 'interactive' && interactive.type === 'flow') {
    const token = obj(obj(interactive.action).parameters).flow_token;
    return typeof token === 'string' ? token : null;
  }
  const components = obj(b.template).components;
  for (const c of Array.isArray(components) ? components.map(obj) : []) {
    if (c.type !== 'button' || c.sub_type !== 'flow' || !Array.isArray(c.parameters)) continue;
    const token = obj(obj(c.parameters[0]).action).flow_token;
    if (typeof token === 'string') return token;
  }
  return null;
}

/** The emulated Flows endpoints of the Graph API. */
@Controller()
@UseGuards(GraphAuthGuard)
@UseFilters(GraphErrorFilter)
export class FlowsGraphController {
  constructor(private readonly flows: SandboxFlowsService) {}

  @Get(':version/:wabaId/flows')
  list(@Param('wabaId') wabaId: string, @Query() query: Record<string, string>): GraphPage<GraphFlow> {
    return this.flows.list(wabaId, query);
  }

  @Post(':version/:flowId/publish')
  @HttpCode(200)
  publish(@Param('flowId') flowId: string): { success: true } {
    return this.flows.publish(flowId);
  }
}

/** Controls of the emulated Flows (docs/sandbox.md, Flows). */
@Controller('_sandbox/whatsapp/flows')
export class FlowsControlController {
  constructor(
    private readonly flows: SandboxFlowsService,
    private readonly messages: GraphMessagesService,
  ) {}

  @Post()
  create(@Body() dto: CreateSandboxFlowDto): SandboxFlow {
    return this.flows.create(dto);
  }

  @Get()
  list(): SandboxFlow[] {
    return this.flows.all();
  }

  @Post(':id/deprecate')
  @HttpCode(200)
  deprecate(@Param('id') id: string): SandboxFlow {
    const flow = this.flows.deprecate(id);
    if (!flow) throw new NotFoundProblem(`flow ${id}`);
    return flow;
  }

  /**
   * The recipient of a sent Flow (interactive, or a template's FLOW button) submits it: an
   * `nfm_reply` answering that message, whose `response_json` carries the message's flow_token.
   */
  @Post('complete')
  async complete(
    @Body() dto: CompleteSandboxFlowDto,
  ): Promise<{ id: string; flow_token: string; webhook: { delivered: boolean; status: number | null } }> {
    const sent = this.messages.list({}).find((s) => s.wamid === dto.message_id);
    if (!sent) throw new NotFoundProblem(`message ${dto.message_id}`);
    const token = flowTokenOfSend(sent.body);
    if (token === null) {
      throw new UnprocessableProblem(
        'not-a-flow',
        'Not a Flow',
        'The message opens no Flow: it carries no flow_token.',
      );
    }
    const to = String(obj(sent.body).to ?? '').replace(/^\+/, '');
    const { id, webhook } = await this.messages.inbound({
      phone_number_id: sent.phone_number_id,
      from: to,
      kind: 'flow',
      text: JSON.stringify({ ...(dto.response ?? {}), flow_token: token }),
      context_message_id: dto.message_id,
    });
    return { id, flow_token: token, webhook: { delivered: webhook.delivered, status: webhook.status } };
  }
}
