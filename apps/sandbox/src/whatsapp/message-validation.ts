import { templateVariables } from '@app/channels';
import { isWhatsAppUserId } from '@app/contracts';
import { graphErrors } from './graph-error';
import { validateInteractive } from './interactive-validation';
import { StoredTemplate } from './templates.service';

const TYPES = ['text', 'image', 'video', 'document', 'audio', 'reaction', 'template', 'interactive'] as const;
export type SandboxMessageType = (typeof TYPES)[number];

export interface ValidatedMessage {
  to: string;
  callbackData?: string;
  type: SandboxMessageType;
  template?: { name: string; language: string; components: Record<string, unknown>[] };
}

/** Graph's longest coupon code of a copy-code button. */
const COUPON_CODE_MAX = 15;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isUrl = (v: unknown) => typeof v === 'string' && /^https?:\/\/\S+$/.test(v);

/** Checks a messages body the way the Cloud API does, with its error codes. */
export function validateMessage(body: unknown): ValidatedMessage {
  if (!isObject(body)) throw graphErrors.invalidParameter('The request body must be a JSON object');
  if (body.messaging_product !== 'whatsapp') {
    throw graphErrors.invalidParameter('The parameter messaging_product is required and must be "whatsapp"');
  }
  if (body.recipient_type !== undefined && body.recipient_type !== 'individual') {
    throw graphErrors.invalidValue('recipient_type must be "individual"');
  }
  // A business-scoped user id is addressed as `recipient` instead of `to`.
  const byUserId = body.to === undefined && typeof body.recipient === 'string';
  if (byUserId && !isWhatsAppUserId(body.recipient as string))
    throw graphErrors.invalidValue(`${String(body.recipient)} is not a valid business-scoped user id`);
  if (!byUserId && (typeof body.to !== 'string' || !body.to.trim()))
    throw graphErrors.missingParameter('The parameter to is required');
  const to = byUserId ? (body.recipient as string) : (body.to as string).replace(/[\s+\-()]/g, '');
  if (!byUserId && !/^[1-9]\d{7,14}$/.test(to))
    throw graphErrors.invalidValue(`${String(body.to)} is not a valid phone number`);
  const callbackData = body.biz_opaque_callback_data;
  if (callbackData !== undefined && (typeof callbackData !== 'string' || callbackData.length > 512)) {
    throw graphErrors.invalidValue('biz_opaque_callback_data must be a string of at most 512 characters');
  }
  const type = (body.type ?? 'text') as SandboxMessageType;
  if (!TYPES.includes(type)) throw graphErrors.invalidParameter(`Unsupported message type ${String(body.type)}`);
  const data = body[type];
  if (!isObject(data)) throw graphErrors.missingParameter(`The parameter ${type} is required`);
  switch (type) {
    case 'text':
      if (typeof data.body !== 'string' || !data.body)
        throw graphErrors.missingParameter('The parameter text.body is required');
      if (data.body.length > 4096) throw graphErrors.invalidValue('text.body is longer than 4096 characters');
      break;
    case 'image':
    case 'video':
    case 'document':
    case 'audio':
      if (data.id === undefined && data.link === undefined) {
        throw graphErrors.missingParameter(`The parameter ${type}.link or ${type}.id is required`);
      }
      if (data.link !== undefined && !isUrl(data.link))
        throw graphErrors.invalidValue(`${type}.link is not a valid URL`);
      if (
        data.caption !== undefined &&
        (type === 'audio' || typeof data.caption !== 'string' || data.caption.length > 1024)
      ) {
        throw graphErrors.invalidValue(`${type}.caption is not valid`);
      }
      if (data.voice !== undefined && (type !== 'audio' || typeof data.voice !== 'boolean')) {
        throw graphErrors.invalidValue(`${type}.voice is not valid`);
      }
      break;
    case 'interactive':
      validateInteractive(data);
      break;
    case 'reaction':
      if (typeof data.message_id !== 'string' || !data.message_id) {
        throw graphErrors.missingParameter('The parameter reaction.message_id is required');
      }
      if (typeof data.emoji !== 'string')
        throw graphErrors.missingParameter('The parameter reaction.emoji is required');
      break;
    case 'template': {
      if (typeof data.name !== 'string' || !data.name)
        throw graphErrors.missingParameter('The parameter template.name is required');
      const language = data.language;
      if (!isObject(language) || typeof language.code !== 'string' || !language.code) {
        throw graphErrors.missingParameter('The parameter template.language.code is required');
      }
      const components = data.components ?? [];
      if (!Array.isArray(components) || !components.every(isObject)) {
        throw graphErrors.invalidValue('template.components must be an array of objects');
      }
      for (const c of components) validateTemplateComponent(c);
      return { to, type, callbackData, template: { name: data.name, language: language.code, components } };
    }
  }
  return { to, type, callbackData };
}

function validateTemplateComponent(c: Record<string, unknown>): void {
  const type = String(c.type ?? '').toLowerCase();
  if (!['header', 'body', 'button'].includes(type))
    throw graphErrors.invalidValue(`component type ${String(c.type)} is not valid`);
  if (!Array.isArray(c.parameters)) throw graphErrors.missingParameter(`${type}.parameters is required`);
  if (type === 'button') {
    if (!['url', 'quick_reply', 'copy_code', 'flow'].includes(String(c.sub_type))) {
      throw graphErrors.invalidValue('button.sub_type must be url, quick_reply, copy_code or flow');
    }
    if (!/^\d$/.test(String(c.index ?? ''))) throw graphErrors.invalidValue('button.index must be 0 to 9');
  }
  for (const p of c.parameters as unknown[]) {
    if (!isObject(p) || typeof p.type !== 'string') throw graphErrors.invalidValue(`${type} parameter needs a type`);
    if (p.type === 'text') {
      if (typeof p.text !== 'string' || !p.text)
        throw graphErrors.missingParameter(`${type} text parameter needs text`);
    } else if (p.type === 'payload') {
      if (typeof p.payload !== 'string') throw graphErrors.missingParameter('payload parameter needs payload');
    } else if (p.type === 'coupon_code') {
      if (typeof p.coupon_code !== 'string' || !p.coupon_code)
        throw graphErrors.missingParameter('coupon_code parameter needs coupon_code');
      if (p.coupon_code.length > COUPON_CODE_MAX)
        throw graphErrors.invalidValue(`coupon_code is at most ${COUPON_CODE_MAX} characters`);
    } else if (p.type === 'action') {
      const action = p.action;
      if (!isObject(action) || (action.flow_token !== undefined && typeof action.flow_token !== 'string')) {
        throw graphErrors.invalidValue('action parameter needs an action object with a string flow_token');
      }
    } else if (['image', 'video', 'document'].includes(p.type)) {
      const media = p[p.type];
      if (type !== 'header') throw graphErrors.parameterFormat(`${p.type} parameters are allowed only in the header`);
      if (!isObject(media) || (!isUrl(media.link) && typeof media.id !== 'string')) {
        throw graphErrors.missingParameter(`${p.type} parameter needs a link`);
      }
    } else {
      throw graphErrors.invalidValue(`parameter type ${p.type} is not supported`);
    }
  }
}

/** A send against a template the sandbox stores: status, then parameters per component. */
export function checkAgainstTemplate(t: StoredTemplate, components: Record<string, unknown>[]): void {
  const what = `${t.name} (${t.language})`;
  if (t.status === 'PAUSED') throw graphErrors.templatePaused(`Template ${what} is paused`);
  if (t.status === 'DISABLED') throw graphErrors.templateDisabled(`Template ${what} is disabled`);
  if (t.status !== 'APPROVED') throw graphErrors.templateMissing(`Template ${what} is not approved (${t.status})`);
  const given = (type: string) =>
    components
      .filter((c) => String(c.type).toLowerCase() === type)
      .flatMap((c) => c.parameters as Record<string, unknown>[]);
  const header = t.components.find((c) => c.type === 'HEADER');
  const headerParams = given('header');
  if (header && header.format && header.format !== 'TEXT') {
    const kind = header.format.toLowerCase();
    if (headerParams.length !== 1)
      throw graphErrors.parameterCount(`header: expected 1 ${kind} parameter, received ${headerParams.length}`);
    if (headerParams[0].type !== kind) {
      throw graphErrors.parameterFormat(
        `header: expected a ${kind} parameter, received ${String(headerParams[0].type)}`,
      );
    }
  } else {
    const expected = header?.text ? templateVariables(header.text).length : 0;
    if (headerParams.length !== expected) {
      throw graphErrors.parameterCount(`header: expected ${expected} parameters, received ${headerParams.length}`);
    }
    if (headerParams.some((p) => p.type !== 'text'))
      throw graphErrors.parameterFormat('header: expected text parameters');
  }
  const body = t.components.find((c) => c.type === 'BODY');
  const expectedBody = body?.text ? Math.max(0, ...templateVariables(body.text)) : 0;
  const bodyParams = given('body');
  if (bodyParams.length !== expectedBody) {
    throw graphErrors.parameterCount(`body: expected ${expectedBody} parameters, received ${bodyParams.length}`);
  }
  const buttons = t.components.find((c) => c.type === 'BUTTONS')?.buttons ?? [];
  buttons.forEach((b, index) => {
    const c = components.find((x) => String(x.type).toLowerCase() === 'button' && String(x.index) === String(index));
    if (b.type === 'COPY_CODE') {
      const coupon = Array.isArray(c?.parameters) ? (c.parameters as Record<string, unknown>[])[0] : undefined;
      if (c?.sub_type !== 'copy_code' || coupon?.type !== 'coupon_code') {
        throw graphErrors.parameterCount(`button ${index}: expected a copy_code button with a coupon_code parameter`);
      }
      return;
    }
    if (b.type !== 'URL' || !b.url || !templateVariables(b.url).length) return;
    const n = Array.isArray(c?.parameters) ? c.parameters.length : 0;
    if (n !== 1) throw graphErrors.parameterCount(`button ${index}: expected 1 parameter, received ${n}`);
  });
}
