import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ChannelRpcReply,
  DeleteTemplateReply,
  DeleteTemplateRequest,
  ListTemplatesReply,
  ListTemplatesRequest,
  SubmitTemplateReply,
  SubmitTemplateRequest,
  UpdateTemplateReply,
  UpdateTemplateRequest,
  WHATSAPP_RPC,
} from '@app/contracts';
import { TemplatesService } from './templates.service';

/** Request/reply handlers for WhatsApp template management (WHATSAPP_RPC). */
@Controller()
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @MessagePattern(WHATSAPP_RPC.submitTemplate)
  submit(@Payload() req: SubmitTemplateRequest): Promise<ChannelRpcReply<SubmitTemplateReply>> {
    return this.templates.submit(req);
  }

  @MessagePattern(WHATSAPP_RPC.updateTemplate)
  update(@Payload() req: UpdateTemplateRequest): Promise<ChannelRpcReply<UpdateTemplateReply>> {
    return this.templates.update(req);
  }

  @MessagePattern(WHATSAPP_RPC.deleteTemplate)
  delete(@Payload() req: DeleteTemplateRequest): Promise<ChannelRpcReply<DeleteTemplateReply>> {
    return this.templates.delete(req);
  }

  @MessagePattern(WHATSAPP_RPC.listTemplates)
  list(@Payload() req: ListTemplatesRequest): Promise<ChannelRpcReply<ListTemplatesReply>> {
    return this.templates.list(req);
  }
}
