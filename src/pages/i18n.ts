// Words of the public HTML pages (the recipients' tracking page), in Portuguese (default) and English.
// Status and event labels are written for recipients: internal words ("stalled", "dispatched") are softened.

import type { EventType } from '../../shared/deliveries/vocabulary.js';

export type Lang = 'pt' | 'en';

/** `?lang=` wins; then the best of pt/en in Accept-Language (by q-value, then order); else Portuguese. */
export function negotiateLang(query: unknown, acceptLanguage: string | undefined): Lang {
  if (typeof query === 'string') {
    const asked = query.trim().toLowerCase().slice(0, 2);
    if (asked === 'en' || asked === 'pt') return asked;
  }
  if (!acceptLanguage) return 'pt';
  let best: { lang: Lang; q: number } | null = null;
  for (const part of acceptLanguage.slice(0, 512).split(',')) {
    const [tag, ...params] = part.trim().split(';');
    const primary = tag.trim().toLowerCase().split('-')[0];
    if (primary !== 'pt' && primary !== 'en') continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q) || q <= 0) continue;
    if (!best || q > best.q) best = { lang: primary, q };
  }
  return best?.lang ?? 'pt';
}

export interface PageStrings {
  htmlLang: string;
  locale: string;
  title: string;
  heading: string;
  reference: string;
  status: string;
  timeline: string;
  noEvents: string;
  updated: string;
  refresh: string;
  otherLang: string;
  otherLangLabel: string;
  notFoundTitle: string;
  notFoundText: string;
  notFoundHint: string;
  /** The banner of a test delivery (test mode: no courier moves it, nothing is delivered). */
  testBanner: string;
  testBannerHint: string;
  timeZoneNote: string;
  live: string;
  shop: string;
  courier: string;
  expected: string;
  cashDue: string;
  help: string;
  helpLead: (shop: string) => string;
  helpNone: string;
  email: string;
  phone: string;
  site: string;
  progress: string;
  steps: [string, string, string, string, string];
  statuses: Record<string, { label: string; hint: string }>;
  /** The hint of a failed delivery whose parcel goes back to the shop (a return to sender started), and once it is back. */
  returning: string;
  returned: string;
  /** A label for every event type: tsc refuses a new event type the recipient's page cannot name. */
  events: Record<EventType, string>;
}

export const STRINGS: Record<Lang, PageStrings> = {
  pt: {
    htmlLang: 'pt-AO',
    locale: 'pt-AO',
    title: 'Acompanhar entrega',
    heading: 'Acompanhar a sua entrega',
    reference: 'Referência',
    status: 'Estado atual',
    timeline: 'Histórico',
    noEvents: 'Ainda não há atualizações.',
    updated: 'Atualizado em',
    refresh: 'Atualizar',
    otherLang: 'en',
    otherLangLabel: 'English',
    notFoundTitle: 'Entrega não encontrada',
    testBanner: 'Entrega de teste',
    testBannerHint: 'Esta entrega foi criada em modo de teste: nenhum estafeta a vai buscar nem entregar.',
    notFoundText: 'Não encontrámos nenhuma entrega com este endereço de acompanhamento.',
    notFoundHint:
      'Confirme que copiou a ligação completa que recebeu da loja. Se o problema continuar, contacte a loja onde fez a compra.',
    timeZoneNote: 'Horas de Angola (WAT).',
    live: 'Esta página atualiza-se sozinha.',
    shop: 'Loja',
    courier: 'Transportadora',
    expected: 'Entrega prevista',
    cashDue: 'A pagar na entrega',
    help: 'Precisa de ajuda?',
    helpLead: (shop) => `Dúvidas sobre esta entrega? Contacte ${shop}:`,
    helpNone: 'Dúvidas sobre esta entrega? Contacte a loja onde fez a compra.',
    email: 'Email',
    phone: 'Telefone',
    site: 'Página de apoio',
    progress: 'Progresso',
    steps: ['Pedido recebido', 'Estafeta atribuído', 'A caminho', 'Saiu para entrega', 'Entregue'],
    statuses: {
      awaiting_payment: {
        label: 'A aguardar pagamento',
        hint: 'A entrega começa quando a loja confirmar o pagamento.',
      },
      pending: { label: 'Pedido recebido', hint: 'Estamos a preparar a recolha com a transportadora.' },
      assigned: { label: 'Estafeta atribuído', hint: 'Um estafeta vai recolher a encomenda.' },
      pickup_ready: { label: 'Pronta para recolha', hint: 'A encomenda está pronta para ser recolhida.' },
      in_transit: { label: 'A caminho', hint: 'A encomenda foi recolhida e está a caminho.' },
      out_for_delivery: {
        label: 'Saiu para entrega',
        hint: 'O estafeta está perto. Tenha o código de entrega (PIN) à mão, se o tiver recebido.',
      },
      delivered: { label: 'Entregue', hint: 'A encomenda foi entregue.' },
      cancelled: { label: 'Cancelada', hint: 'Esta entrega foi cancelada.' },
      failed: { label: 'Entrega falhada', hint: 'Não foi possível entregar. A loja vai contactá-lo.' },
      stalled: { label: 'Atrasada, em verificação', hint: 'A nossa equipa está a tratar do atraso.' },
    },
    returning: 'Não foi possível entregar: a encomenda está a voltar para a loja. A loja vai contactá-lo.',
    returned: 'Não foi possível entregar: a encomenda voltou para a loja. A loja vai contactá-lo.',
    events: {
      'delivery.created': 'Pedido de entrega criado',
      'delivery.payment_confirmed': 'Pagamento confirmado',
      'delivery.dispatched': 'Pedido enviado à transportadora',
      'delivery.assigned': 'Estafeta atribuído',
      'delivery.pickup_ready': 'Pronta para recolha',
      'delivery.in_transit': 'Recolhida e a caminho',
      'delivery.out_for_delivery': 'Saiu para entrega',
      'delivery.delivered': 'Entregue',
      'delivery.failed': 'Entrega falhada',
      'delivery.cancelled': 'Entrega cancelada',
      'delivery.stalled': 'Atraso em verificação',
      'delivery.redispatched': 'Nova transportadora atribuída',
      'delivery.resumed': 'Entrega retomada',
      'delivery.operator_action': 'Atualizada pela equipa de apoio',
      'delivery.booking_release_failed': 'Atualização com a transportadora',
      'delivery.attempt_failed': 'Tentativa de entrega sem sucesso',
      'delivery.return_started': 'A encomenda está a voltar para a loja',
      'delivery.returned': 'A encomenda voltou para a loja',
      'delivery.recipient_updated': 'Indicações do destinatário enviadas ao estafeta',
      'cod.collected': 'Dinheiro recebido na entrega',
      'cod.discrepancy': 'Diferença no dinheiro recebido',
      'cod.remitted': 'Dinheiro entregue à loja',
      'cod.overdue': 'Dinheiro por entregar em atraso',
    },
  },
  en: {
    htmlLang: 'en',
    locale: 'en-GB',
    title: 'Track delivery',
    heading: 'Track your delivery',
    reference: 'Reference',
    status: 'Current status',
    timeline: 'History',
    noEvents: 'No updates yet.',
    updated: 'Updated at',
    refresh: 'Refresh',
    otherLang: 'pt',
    otherLangLabel: 'Português',
    notFoundTitle: 'Delivery not found',
    testBanner: 'Test delivery',
    testBannerHint: 'This delivery was made in test mode: no courier will pick it up or deliver it.',
    notFoundText: 'We could not find a delivery at this tracking address.',
    notFoundHint:
      'Check that you copied the whole link you received from the shop. If the problem persists, contact the shop where you bought.',
    timeZoneNote: 'Angola time (WAT).',
    live: 'This page updates by itself.',
    shop: 'Shop',
    courier: 'Courier',
    expected: 'Expected delivery',
    cashDue: 'To pay on delivery',
    help: 'Need help?',
    helpLead: (shop) => `Questions about this delivery? Contact ${shop}:`,
    helpNone: 'Questions about this delivery? Contact the shop where you bought.',
    email: 'Email',
    phone: 'Phone',
    site: 'Help page',
    progress: 'Progress',
    steps: ['Order received', 'Courier assigned', 'On its way', 'Out for delivery', 'Delivered'],
    statuses: {
      awaiting_payment: { label: 'Awaiting payment', hint: 'The delivery starts once the shop confirms the payment.' },
      pending: { label: 'Order received', hint: 'We are arranging the pickup with the courier.' },
      assigned: { label: 'Courier assigned', hint: 'A courier will pick up the parcel.' },
      pickup_ready: { label: 'Ready for pickup', hint: 'The parcel is ready to be picked up.' },
      in_transit: { label: 'On its way', hint: 'The parcel was picked up and is on its way.' },
      out_for_delivery: {
        label: 'Out for delivery',
        hint: 'The courier is close. Have your delivery code (PIN) ready if you received one.',
      },
      delivered: { label: 'Delivered', hint: 'The parcel was delivered.' },
      cancelled: { label: 'Cancelled', hint: 'This delivery was cancelled.' },
      failed: { label: 'Delivery failed', hint: 'The parcel could not be delivered. The shop will contact you.' },
      stalled: { label: 'Delayed, being looked into', hint: 'Our team is dealing with the delay.' },
    },
    returning: 'The parcel could not be delivered: it is going back to the shop. The shop will contact you.',
    returned: 'The parcel could not be delivered: it is back at the shop. The shop will contact you.',
    events: {
      'delivery.created': 'Delivery requested',
      'delivery.payment_confirmed': 'Payment confirmed',
      'delivery.dispatched': 'Sent to the courier',
      'delivery.assigned': 'Courier assigned',
      'delivery.pickup_ready': 'Ready for pickup',
      'delivery.in_transit': 'Picked up and on its way',
      'delivery.out_for_delivery': 'Out for delivery',
      'delivery.delivered': 'Delivered',
      'delivery.failed': 'Delivery failed',
      'delivery.cancelled': 'Delivery cancelled',
      'delivery.stalled': 'Delay being looked into',
      'delivery.redispatched': 'New courier assigned',
      'delivery.resumed': 'Delivery resumed',
      'delivery.operator_action': 'Updated by our support team',
      'delivery.booking_release_failed': 'Update with the courier',
      'delivery.attempt_failed': 'Delivery attempt unsuccessful',
      'delivery.return_started': 'The parcel is going back to the shop',
      'delivery.returned': 'The parcel is back at the shop',
      'delivery.recipient_updated': "Recipient's directions sent to the courier",
      'cod.collected': 'Cash collected at the door',
      'cod.discrepancy': 'Cash collected differs',
      'cod.remitted': 'Cash handed over to the shop',
      'cod.overdue': 'Cash overdue',
    },
  },
};

/** Which of the five progress steps a status has reached (-1: off the happy path, no bar). */
export function progressStep(status: string): number {
  switch (status) {
    case 'awaiting_payment':
    case 'pending':
      return 0;
    case 'assigned':
    case 'pickup_ready':
      return 1;
    case 'in_transit':
      return 2;
    case 'out_for_delivery':
      return 3;
    case 'delivered':
      return 4;
    default:
      return -1;
  }
}
