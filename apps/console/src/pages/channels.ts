/** The messaging channels the gateway sends on. */
export const CHANNELS = ['whatsapp', 'telegram', 'max'] as const;
