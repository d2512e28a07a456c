import type { ChannelRegistration } from './registration';

/**
 * Course platforms: an account connects one to receive its learners' events and send on the
 * messengers; nothing is sent to the platform itself as a message, so it is neither paced nor priced.
 */
export const COURSE_CHANNEL = {
  name: 'course',
  kind: 'course_platform',
  connection: 'platform',
  gatewaySends: false,
  receipts: false,
  pricing: 'none',
  settings: {},
} as const satisfies ChannelRegistration;
