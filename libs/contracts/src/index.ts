export * from './channels';
export * from './topology';
export * from './events';
export * from './outbound';
export * from './ids';
export * from './whatsapp';
export * from './subscriptions';
export * from './apps';
