// Custom search attributes (Keyword) that the delivery workflow keeps current, so an operator can
// filter in the Temporal UI, e.g. DeliveryStatus = "stalled". The dev server registers them at start.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const DeliveryStatusKey = defineSearchAttributeKey('DeliveryStatus', SearchAttributeType.KEYWORD);
export const TenantIdKey = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);
export const DeliveryReferenceKey = defineSearchAttributeKey('DeliveryReference', SearchAttributeType.KEYWORD);
export const CourierSlugKey = defineSearchAttributeKey('CourierSlug', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTE_NAMES = ['DeliveryStatus', 'TenantId', 'DeliveryReference', 'CourierSlug'] as const;
