// Every workflow the worker runs. The bundle is built once from this file (scripts/build-workflows.ts).
export * from './system/workflows.js';
export * from './deliveries/workflows.js';
export * from './deliveries/booking-release.js';
export * from './deliveries/courier-update.js';
export * from './webhooks/workflows.js';
export * from './maintenance/workflows.js';
export * from './simulated-couriers/workflows.js';
export * from './cod/workflows.js';
