import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { whatsAppMediaObject } from '../media/sandbox-media';
import { MediaUploads } from '../media/media-uploads';
import { GraphPage, GraphSendResponse, GraphTemplate, GraphTemplateCreateResponse } from '@app/channels';
import { SandboxFlowsService } from './flows.service';
import { GraphAuthGuard } from './graph-auth.guard';
import { GraphError, graphErrors, GraphErrorFilter } from './graph-error';
import { Fault, GraphMessagesService, RecordedSend } from './messages.service';
import { PhoneNumbersService } from './phone-numbers.service';
import { ReadMarkers } from './read-markers';
import { SandboxClock } from './sandbox-clock';
import { SandboxTemplatesService } from './templates.service';

/** The emulated WhatsApp Cloud (Graph) API, under `/{version}/...` like graph.facebook.com. */
@Controller()
@UseGuards(GraphAuthGuard)
@UseFilters(GraphErrorFilter)
export class GraphController {
  constructor(
    private readonly messages: GraphMessagesService,
    private readonly templates: SandboxTemplatesService,
    private readonly numbers: PhoneNumbersService,
    private readonly clock: SandboxClock,
    private readonly readMarkers: ReadMarkers,
    private readonly uploads: MediaUploads,
    private readonly flows: SandboxFlowsService,
  ) {}

  @Post(':version/:phoneNumberId/messages')
  @HttpCode(200)
  send(
    @Param('phoneNumberId') phoneNumberId: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<GraphSendResponse> {
    const marker = this.readMarkers.take(phoneNumberId, body);
    if (marker) return Promise.resolve(marker as unknown as GraphSendResponse);
    // A media message by an uploaded id: one this sandbox gave out and has not expired.
    const b = body as { type?: unknown } & Record<string, { id?: unknown } | undefined>;
    const id = typeof b?.type === 'string' ? b[b.type]?.id : undefined;
    if (typeof id === 'string' && !this.uploads.known(id))
      throw new GraphError(400, 131053, '(#131053) Media upload error', `media id ${id} is not valid`);
    return this.handleSend(phoneNumberId, 'messages', body, reply);
  }

  /** A media upload (multipart: messaging_product, type, file): counted, answered with its media id. */
  @Post(':version/:phoneNumberId/media')
  @HttpCode(200)
  upload(@Param('phoneNumberId') phoneNumberId: string, @Req() req: FastifyRequest): { id: string } {
    // The body as parsed (a Buffer), not through the validation pipe.
    const body: unknown = req.body;
    const text = Buffer.isBuffer(body) ? body.toString('latin1') : '';
    if (!/name="messaging_product"\r\n\r\nwhatsapp/.test(text) || !/name="file"; filename=/.test(text))
      throw graphErrors.missingParameter('a media upload is multipart with messaging_product=whatsapp and a file');
    if (!this.numbers.get(phoneNumberId)) throw graphErrors.objectMissing(phoneNumberId);
    return { id: this.uploads.record('whatsapp', 'wamedia.') };
  }

  /** MM Lite: marketing template messages through their own endpoint. */
  @Post(':version/:phoneNumberId/marketing_messages')
  @HttpCode(200)
  sendMarketing(
    @Param('phoneNumberId') phoneNumberId: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<GraphSendResponse> {
    return this.handleSend(phoneNumberId, 'marketing_messages', body, reply);
  }

  @Post(':version/:wabaId/message_templates')
  @HttpCode(200)
  async createTemplate(
    @Param('wabaId') wabaId: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<GraphTemplateCreateResponse> {
    await this.templateFault(reply);
    return this.templates.create(wabaId, body);
  }

  @Get(':version/:wabaId/message_templates')
  async listTemplates(
    @Param('wabaId') wabaId: string,
    @Query() query: Record<string, string>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<GraphPage<GraphTemplate>> {
    await this.templateFault(reply);
    return this.templates.list(wabaId, query);
  }

  @Delete(':version/:wabaId/message_templates')
  async deleteTemplate(
    @Param('wabaId') wabaId: string,
    @Query() query: Record<string, string>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ success: true }> {
    await this.templateFault(reply);
    return this.templates.remove(wabaId, query.name, query.hsm_id);
  }

  @Get(':version/:wabaId/phone_numbers')
  phoneNumbers(@Param('wabaId') wabaId: string) {
    return {
      data: this.numbers.ofWaba(wabaId).map((n) => ({
        id: n.id,
        display_phone_number: n.display_phone_number,
        verified_name: n.verified_name,
        quality_rating: n.quality_rating,
        code_verification_status: 'VERIFIED',
      })),
    };
  }

  /** Edit of a template (the only object the sandbox lets you POST to by id). */
  @Post(':version/:objectId')
  @HttpCode(200)
  async editTemplate(
    @Param('objectId') objectId: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ success: true }> {
    await this.templateFault(reply);
    return this.templates.edit(objectId, body);
  }

  /** A template or a Flow by id, or a phone number's information. */
  @Get(':version/:objectId')
  object(@Param('objectId') objectId: string, @Req() req: FastifyRequest) {
    // An inbound media id: its URL (served with the access token) and size, as the Cloud API answers.
    if (objectId.startsWith('media.')) return whatsAppMediaObject(objectId, `${req.protocol}://${req.headers.host}`);
    const template = this.templates.get(objectId);
    if (template) return this.templates.toGraph(template);
    const flow = this.flows.get(objectId);
    if (flow) {
      const { waba_id, ...fields } = flow;
      return { ...fields, whatsapp_business_account: { id: waba_id } };
    }
    if (!/^\d+$/.test(objectId)) throw graphErrors.objectMissing(objectId);
    const n = this.numbers.describe(objectId);
    return {
      id: n.id,
      display_phone_number: n.display_phone_number,
      verified_name: n.verified_name,
      quality_rating: n.quality_rating,
      messaging_limit_tier: n.messaging_limit_tier,
      status: n.status,
      code_verification_status: 'VERIFIED',
      platform_type: 'CLOUD_API',
      throughput: { level: 'STANDARD' },
    };
  }

  private async handleSend(
    phoneNumberId: string,
    endpoint: RecordedSend['endpoint'],
    body: unknown,
    reply: FastifyReply,
  ): Promise<GraphSendResponse> {
    const fault = this.messages.takeFault('messages', phoneNumberId);
    if (fault) {
      this.messages.recordFault(phoneNumberId, endpoint, body, fault);
      await this.applyFault(fault, reply);
    }
    return this.messages.send(phoneNumberId, endpoint, body);
  }

  private async templateFault(reply: FastifyReply): Promise<void> {
    const fault = this.messages.takeFault('templates', null);
    if (fault) await this.applyFault(fault, reply);
  }

  /** Always throws: a rate limit, a server error, or nothing until the client gives up. */
  private async applyFault(fault: Fault, reply: FastifyReply): Promise<never> {
    if (fault.mode === '429') throw graphErrors.rateLimited(fault.retry_after_seconds);
    if (fault.mode === 'hang') {
      const stopped = this.clock.untilStopped();
      await Promise.race([stopped.promise, new Promise((resolve) => reply.raw.once('close', resolve))]);
      stopped.release();
    }
    throw graphErrors.unavailable();
  }
}
