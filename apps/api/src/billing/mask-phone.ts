import { WHATSAPP_PHONE } from '@app/contracts';

/** A phone number with all but its first 4 and last 2 digits hidden: 79990001122 -> 7999*****22. */
export function maskPhone(phone: string | null): string | null {
  return phone === null ? null : WHATSAPP_PHONE.mask(phone);
}
