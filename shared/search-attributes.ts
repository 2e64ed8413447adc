// Custom search attributes that the delivery workflow carries, so an operator can filter in the Temporal UI, e.g.
// DeliveryStatus = "stalled" AND DeliveryLivemode = true. DeliveryStatus and CourierSlug are kept current by the
// workflow; TenantId, DeliveryReference and DeliveryLivemode are set at start. Every Temporal we run registers
// SEARCH_ATTRIBUTES (the dev server at start, the cluster and docker-compose with `temporal operator search-attribute create`).
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const DeliveryStatusKey = defineSearchAttributeKey('DeliveryStatus', SearchAttributeType.KEYWORD);
export const TenantIdKey = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);
export const DeliveryReferenceKey = defineSearchAttributeKey('DeliveryReference', SearchAttributeType.KEYWORD);
export const CourierSlugKey = defineSearchAttributeKey('CourierSlug', SearchAttributeType.KEYWORD);
/** true for a live delivery, false for a test one (a test key's): keeps test deliveries out of an operator's live list. */
export const DeliveryLivemodeKey = defineSearchAttributeKey('DeliveryLivemode', SearchAttributeType.BOOL);

/** Each attribute's name and its type as `temporal` (CLI and dev server) spells it. */
export const SEARCH_ATTRIBUTES = [
  { name: 'DeliveryStatus', type: 'Keyword' },
  { name: 'TenantId', type: 'Keyword' },
  { name: 'DeliveryReference', type: 'Keyword' },
  { name: 'CourierSlug', type: 'Keyword' },
  { name: 'DeliveryLivemode', type: 'Bool' },
] as const;

/** The dev server's arguments registering them: `--search-attribute Name=Type` each. */
export const devServerSearchAttributeArgs = (): string[] =>
  SEARCH_ATTRIBUTES.flatMap(({ name, type }) => ['--search-attribute', `${name}=${type}`]);
