import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  DeleteTemplateReply,
  DeleteTemplateRequest,
  ListTemplatesReply,
  ListTemplatesRequest,
  NumbersHealthReply,
  NumbersHealthRequest,
  RpcReply,
  SubmitTemplateReply,
  SubmitTemplateRequest,
  UpdateTemplateReply,
  UpdateTemplateRequest,
  WHATSAPP_RPC,
} from '@app/contracts';
import { ChannelTemplatesService } from './templates.service';

/** Request/reply handlers for WhatsApp template management and number state (WHATSAPP_RPC). */
@Controller()
export class ChannelTemplatesController {
  constructor(private readonly templates: ChannelTemplatesService) {}

  @MessagePattern(WHATSAPP_RPC.submitTemplate)
  submit(@Payload() req: SubmitTemplateRequest): Promise<RpcReply<SubmitTemplateReply>> {
    return this.templates.submit(req);
  }

  @MessagePattern(WHATSAPP_RPC.updateTemplate)
  update(@Payload() req: UpdateTemplateRequest): Promise<RpcReply<UpdateTemplateReply>> {
    return this.templates.update(req);
  }

  @MessagePattern(WHATSAPP_RPC.deleteTemplate)
  delete(@Payload() req: DeleteTemplateRequest): Promise<RpcReply<DeleteTemplateReply>> {
    return this.templates.delete(req);
  }

  @MessagePattern(WHATSAPP_RPC.numbersHealth)
  numbersHealth(@Payload() req: NumbersHealthRequest): Promise<RpcReply<NumbersHealthReply>> {
    return this.templates.numbersHealth(req);
  }

  @MessagePattern(WHATSAPP_RPC.listTemplates)
  list(@Payload() req: ListTemplatesRequest): Promise<RpcReply<ListTemplatesReply>> {
    return this.templates.list(req);
  }
}
