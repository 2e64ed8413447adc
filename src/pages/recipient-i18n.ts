// Words of the recipient's forms on the tracking page (docs/recipients.md "The recipient page"), pt-AO and English.
import type { FieldProblem, RecipientForm } from '../recipients/forms.js';
import type { Lang } from './i18n.js';

export interface RecipientStrings {
  heading: string;
  lead: string;
  instructionsLegend: string;
  instructionsLabel: string;
  instructionsHint: (max: number) => string;
  locationLegend: string;
  locationLead: string;
  useLocation: string;
  locating: string;
  located: string;
  locationFailed: string;
  lat: string;
  lng: string;
  windowLegend: string;
  windowLead: string;
  date: string;
  slot: string;
  send: Record<RecipientForm, string>;
  done: Record<RecipientForm, string>;
  errorSummary: string;
  problems: Record<FieldProblem, string>;
  over: string;
  windowClosed: string;
  unavailable: string;
  forbidden: string;
}

export const RECIPIENT_STRINGS: Record<Lang, RecipientStrings> = {
  pt: {
    heading: 'Ajude o estafeta a encontrá-lo',
    lead: 'Estas indicações vão diretamente para o estafeta. Não partilhe palavras-passe nem dados bancários.',
    instructionsLegend: 'Indicações de entrega',
    instructionsLabel: 'Como chegar à sua porta (pontos de referência, cor do portão, andar)',
    instructionsHint: (max) => `Até ${max} caracteres.`,
    locationLegend: 'A minha localização',
    locationLead: 'Partilhe onde está para o estafeta chegar à porta certa. Sem JavaScript, escreva as coordenadas.',
    useLocation: 'Usar a minha localização',
    locating: 'A obter a sua localização…',
    located: 'Localização preenchida. Confirme e envie.',
    locationFailed: 'Não foi possível obter a localização. Escreva as coordenadas ou tente de novo.',
    lat: 'Latitude (ex.: -8,8383)',
    lng: 'Longitude (ex.: 13,2344)',
    windowLegend: 'Próxima tentativa de entrega',
    windowLead: 'A última tentativa não foi possível. Escolha quando prefere receber a encomenda.',
    date: 'Dia',
    slot: 'Período',
    send: { instructions: 'Enviar indicações', location: 'Enviar localização', window: 'Enviar preferência' },
    done: {
      instructions: 'Obrigado! As suas indicações foram enviadas ao estafeta.',
      location: 'Obrigado! A sua localização foi enviada ao estafeta.',
      window: 'Obrigado! A sua preferência para a próxima tentativa foi enviada ao estafeta.',
    },
    errorSummary: 'Corrija o que está assinalado e envie de novo.',
    problems: {
      required: 'Preencha este campo.',
      too_long: 'O texto é demasiado longo.',
      not_a_number: 'Escreva um número, por exemplo -8,8383.',
      out_of_range: 'Este valor não é possível.',
      not_offered: 'Escolha uma das opções.',
    },
    over: 'Esta entrega já terminou: já não é possível enviar indicações.',
    windowClosed: 'Só pode escolher o período depois de uma tentativa de entrega sem sucesso.',
    unavailable: 'Não foi possível enviar agora. Tente de novo dentro de momentos.',
    forbidden: 'Esta ligação não permite enviar indicações. Use a ligação completa que recebeu por SMS.',
  },
  en: {
    heading: 'Help the courier find you',
    lead: 'These directions go straight to the courier. Do not share passwords or bank details.',
    instructionsLegend: 'Delivery instructions',
    instructionsLabel: 'How to reach your door (landmarks, gate colour, floor)',
    instructionsHint: (max) => `Up to ${max} characters.`,
    locationLegend: 'My location',
    locationLead:
      'Share where you are so the courier reaches the right door. Without JavaScript, type the coordinates.',
    useLocation: 'Use my location',
    locating: 'Getting your location…',
    located: 'Location filled in. Check it and send.',
    locationFailed: 'Your location could not be read. Type the coordinates or try again.',
    lat: 'Latitude (e.g. -8.8383)',
    lng: 'Longitude (e.g. 13.2344)',
    windowLegend: 'Next delivery attempt',
    windowLead: 'The last attempt did not succeed. Choose when you would rather receive the parcel.',
    date: 'Day',
    slot: 'Time window',
    send: { instructions: 'Send instructions', location: 'Send location', window: 'Send preference' },
    done: {
      instructions: 'Thank you! Your instructions were sent to the courier.',
      location: 'Thank you! Your location was sent to the courier.',
      window: 'Thank you! Your preference for the next attempt was sent to the courier.',
    },
    errorSummary: 'Correct what is marked and send again.',
    problems: {
      required: 'Fill in this field.',
      too_long: 'The text is too long.',
      not_a_number: 'Type a number, for example -8.8383.',
      out_of_range: 'This value is not possible.',
      not_offered: 'Choose one of the options.',
    },
    over: 'This delivery is over: directions can no longer be sent.',
    windowClosed: 'A time window can be chosen only after an unsuccessful delivery attempt.',
    unavailable: 'This could not be sent just now. Try again in a moment.',
    forbidden: 'This link does not allow sending directions. Use the whole link you received by SMS.',
  },
};
