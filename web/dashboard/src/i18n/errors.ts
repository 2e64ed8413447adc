// The API's problems in the merchant's words: one sentence per `error` code of the error catalog
// (src/http/error-catalog*.ts) and one per field-error `code`, in Portuguese of Angola and English. Typed by the
// generated client's Problem schema: a new code without its words is a type error (`tsc -p web`). The dashboard shows
// these instead of the API's English `detail`; a code it does not know reads as `problem_unknown` (./pt.ts).
import type { components } from '../../../../clients/typescript/src/index.js';

export type ErrorCode = NonNullable<components['schemas']['Problem']['error']>;
export type FieldErrorCode = components['schemas']['FieldError']['code'];

/** [Portuguese, English] */
type Pair = readonly [string, string];

const ERRORS: Record<ErrorCode, Pair> = {
  invalid_json: [
    'O pedido enviado não estava bem formado. Recarregue a página e tente de novo.',
    'The request sent was malformed. Reload the page and try again.',
  ],
  invalid_content_length: ['O pedido chegou incompleto. Tente de novo.', 'The request arrived incomplete. Try again.'],
  invalid_url: ['Este endereço não é válido.', 'This address is not valid.'],
  bad_request: [
    'O pedido não pôde ser tratado. Recarregue a página e tente de novo.',
    'The request could not be handled. Reload the page and try again.',
  ],
  unauthorized: [
    'A sua sessão ou a chave já não é válida. Entre de novo.',
    'Your session or key is no longer valid. Sign in again.',
  ],
  invalid_credentials: ['Email ou palavra-passe errados.', 'Wrong email or password.'],
  courier_inactive: ['Esta transportadora está desativada.', 'This courier company is deactivated.'],
  forbidden: [
    'O seu papel não permite esta ação. Peça a um proprietário da conta.',
    'Your role does not allow this. Ask an owner of the account.',
  ],
  csrf_token_invalid: [
    'A página está desatualizada. Recarregue-a e tente de novo.',
    'The page is out of date. Reload it and try again.',
  ],
  session_required: [
    'Isto só se faz a partir do painel, com sessão iniciada.',
    'This can only be done from the dashboard, signed in.',
  ],
  not_found: [
    'Não encontrado: não existe, ou pertence ao outro modo (real ou de teste).',
    'Not found: it does not exist, or it belongs to the other mode (live or test).',
  ],
  delivery_not_cancellable: [
    'Esta entrega já não pode ser cancelada: só se cancela antes de a transportadora a recolher (a aguardar pagamento, pendente ou atribuída).',
    'This delivery can no longer be cancelled: only before the courier picks it up (awaiting payment, pending or assigned).',
  ],
  delivery_not_awaiting_payment: [
    'Esta entrega já não está a aguardar pagamento.',
    'This delivery is no longer awaiting payment.',
  ],
  return_not_allowed: [
    'Só uma entrega falhada, sem devolução, pode voltar à loja.',
    'Only a failed delivery without a return can go back to the shop.',
  ],
  delivery_transition_not_allowed: [
    'O estado desta entrega de teste não permite este passo.',
    'This test delivery’s status does not allow this step.',
  ],
  delivery_not_stalled: [
    'Esta entrega já não está parada: não há nada a retomar.',
    'This delivery is no longer stalled: there is nothing to recover.',
  ],
  recovery_not_allowed: [
    'Esta entrega parou depois da recolha: já não se cancela. Peça a outra transportadora, retome ou dê como falhada.',
    'This delivery stalled after pickup: it can no longer be cancelled. Send it to another courier, resume it or mark it failed.',
  ],
  no_company_available: [
    'Nenhuma outra transportadora faz esta entrega dentro do limite de preço. Escolha uma transportadora ou aumente o limite nas definições.',
    'No other courier takes this delivery within its price limit. Choose a courier or raise the limit in the settings.',
  ],
  idempotency_request_in_progress: [
    'O mesmo pedido ainda está a ser tratado. Aguarde um momento.',
    'The same request is still being handled. Wait a moment.',
  ],
  webhook_endpoint_disabled: [
    'Este endpoint está desativado: ative-o antes de reenviar.',
    'This endpoint is disabled: enable it before replaying.',
  ],
  replay_in_progress: [
    'Já está a decorrer um reenvio para este endpoint. Tente quando acabar.',
    'A replay to this endpoint is already running. Try when it has finished.',
  ],
  email_taken: ['Este email já tem conta nesta equipa.', 'This email already has an account in this team.'],
  last_owner: [
    'Este é o único proprietário da conta: torne outro utilizador proprietário primeiro.',
    'This is the account’s only owner: make another user an owner first.',
  ],
  api_key_revoked: ['Esta chave foi revogada: crie uma nova.', 'This key is revoked: create a new one.'],
  payload_too_large: ['O pedido é grande demais.', 'The request is too large.'],
  unsupported_media_type: [
    'O pedido não estava no formato esperado. Recarregue a página.',
    'The request was not in the expected format. Reload the page.',
  ],
  validation_failed: ['Há campos por corrigir.', 'Some fields need correcting.'],
  quote_id_required: [
    'Peça os preços e escolha uma transportadora primeiro.',
    'Get the prices and choose a courier first.',
  ],
  quote_not_found: [
    'Este preço já não existe. Peça os preços de novo.',
    'This price no longer exists. Get the prices again.',
  ],
  quote_expired: ['Este preço expirou. Peça os preços de novo.', 'This price has expired. Get the prices again.'],
  quote_already_used: [
    'Este preço já criou uma entrega. Peça os preços de novo.',
    'This price already created a delivery. Get the prices again.',
  ],
  quote_company_mismatch: [
    'A transportadora escolhida não é a deste preço. Peça os preços de novo.',
    'The chosen courier is not this price’s. Get the prices again.',
  ],
  quote_payload_mismatch: [
    'As moradas ou a encomenda mudaram depois do preço. Peça os preços de novo.',
    'The addresses or the parcel changed after the price. Get the prices again.',
  ],
  courier_fee_aoa_not_accepted: [
    'O preço da transportadora vem do preço pedido; não se indica à mão.',
    'The courier’s fee comes from the quote; it is not typed in.',
  ],
  payment_method_not_allowed: [
    'Esta forma de pagamento não é aceite aqui.',
    'This payment method is not accepted here.',
  ],
  idempotency_key_reused: [
    'Este pedido repete um anterior com dados diferentes. Recarregue a página e tente de novo.',
    'This request repeats an earlier one with different data. Reload the page and try again.',
  ],
  cancellation_rejected: [
    'O cancelamento foi recusado: a transportadora não libertou a reserva, ou a entrega mudou de estado entretanto.',
    'The cancellation was refused: the courier did not release the booking, or the delivery changed status meanwhile.',
  ],
  payment_confirmation_rejected: [
    'A confirmação do pagamento foi recusada: a entrega já não aguarda pagamento.',
    'The payment confirmation was refused: the delivery no longer awaits payment.',
  ],
  delivery_pin_mismatch: ['O PIN não é o desta entrega.', 'The PIN is not this delivery’s.'],
  message_not_found: ['Esta mensagem não existe.', 'This message does not exist.'],
  replay_range_too_large: [
    'Mais de 1000 mensagens neste intervalo: escolha um intervalo mais curto.',
    'More than 1000 messages in this range: choose a shorter one.',
  ],
  webhook_endpoint_limit_reached: [
    'Já tem 20 endpoints: elimine um primeiro.',
    'You already have 20 endpoints: delete one first.',
  ],
  password_link_invalid: [
    'Este link não é válido, já foi usado ou expirou. Peça um novo a um proprietário da conta.',
    'This link is not valid, was already used or has expired. Ask an owner of the account for a new one.',
  ],
  api_key_limit_reached: [
    'Já tem 50 chaves ativas neste modo: revogue uma primeiro.',
    'You already have 50 active keys in this mode: revoke one first.',
  ],
  company_not_linked: [
    'Esta transportadora não está ligada à sua conta neste modo.',
    'This courier is not linked to your account in this mode.',
  ],
  rate_limited: [
    'Pedidos a mais num curto espaço de tempo. Aguarde um pouco e tente de novo.',
    'Too many requests in a short time. Wait a little and try again.',
  ],
  sign_in_locked: [
    'Tentativas falhadas a mais: a entrada está bloqueada durante até 15 minutos.',
    'Too many failed attempts: signing in is locked for up to 15 minutes.',
  ],
  headers_too_large: ['O pedido é grande demais. Recarregue a página.', 'The request is too large. Reload the page.'],
  internal_error: [
    'Algo correu mal do nosso lado. Tente mais tarde; se continuar, contacte o apoio.',
    'Something went wrong on our side. Try later; if it goes on, contact support.',
  ],
  service_unavailable: [
    'O serviço não respondeu (um reinício ou uma falha de rede). Tente de novo daqui a uns segundos.',
    'The service did not answer (a restart or a network fault). Try again in a few seconds.',
  ],
  upstream_unavailable: [
    'Nenhuma transportadora respondeu a tempo. Tente de novo daqui a pouco.',
    'No courier answered in time. Try again shortly.',
  ],
  no_courier_configured: [
    'Ainda não tem nenhuma transportadora ligada à conta.',
    'No courier is linked to your account yet.',
  ],
  cancellation_pending: [
    'Não foi possível confirmar o cancelamento a tempo; pode ainda acontecer. Veja a entrega daqui a pouco.',
    'The cancellation could not be confirmed in time; it may still happen. Check the delivery in a moment.',
  ],
  test_helper_pending: [
    'O passo de teste ainda não ficou registado; pode ainda acontecer.',
    'The test step is not recorded yet; it may still happen.',
  ],
  recovery_pending: [
    'Não foi possível confirmar a ação a tempo; pode ainda acontecer. Veja a entrega daqui a pouco antes de tentar de novo.',
    'The action could not be confirmed in time; it may still happen. Check the delivery in a moment before trying again.',
  ],
  password_check_busy: [
    'O servidor está ocupado. Tente de novo daqui a 2 segundos.',
    'The server is busy. Try again in 2 seconds.',
  ],
  not_ready: ['O serviço está a arrancar. Tente de novo daqui a pouco.', 'The service is starting. Try again shortly.'],
  remittance_mixed_tenants: [
    'Uma remessa só pode cobrir entregas de uma loja.',
    'A remittance can only cover one shop’s deliveries.',
  ],
  remittance_amount_mismatch: [
    'Os valores da remessa não batem com o dinheiro cobrado.',
    'The remittance’s amounts do not match the cash collected.',
  ],
  already_remitted: [
    'Uma destas entregas já está noutra remessa.',
    'One of these deliveries is in another remittance already.',
  ],
  remittance_ref_reused: [
    'Esta referência de remessa já foi usada com outros dados.',
    'This remittance reference was used with other data.',
  ],
  remittance_not_reported: [
    'Esta remessa já foi confirmada ou contestada.',
    'This remittance was already confirmed or disputed.',
  ],
};

const FIELD_ERRORS: Record<FieldErrorCode, Pair> = {
  required: ['é obrigatório', 'is required'],
  invalid_type: ['não tem o formato esperado', 'is not in the expected format'],
  too_small: ['é pequeno ou curto demais', 'is too small or too short'],
  too_large: ['é grande ou longo demais', 'is too large or too long'],
  invalid_format: ['não está bem escrito', 'is not written correctly'],
  out_of_range: ['está fora dos limites aceites', 'is outside the accepted range'],
  invalid_enum: ['não é uma das opções aceites', 'is not one of the accepted options'],
  not_allowed: ['não é permitido aqui', 'is not allowed here'],
  unknown_field: ['não é aceite', 'is not accepted'],
  invalid: ['não é válido', 'is not valid'],
  invalid_string: ['tem caracteres que não são aceites', 'has characters that are not accepted'],
  too_deep: ['tem níveis a mais', 'is nested too deep'],
  unsupported_scheme: ['tem de começar por https://', 'must start with https://'],
  private_address: [
    'aponta para um endereço privado, que não se pode usar',
    'points at a private address, which cannot be used',
  ],
  cash_collect_aoa_mismatch: ['só se indica com pagamento na entrega', 'is only given with payment on delivery'],
  quote_payload_mismatch: [
    'mudou depois do preço: peça os preços de novo',
    'changed after the price: get the prices again',
  ],
  invalid_url: ['não é um endereço válido', 'is not a valid address'],
  quote_id_required: ['falta: peça os preços primeiro', 'is missing: get the prices first'],
  quote_not_found: ['já não existe: peça os preços de novo', 'no longer exists: get the prices again'],
  quote_expired: ['expirou: peça os preços de novo', 'has expired: get the prices again'],
  quote_already_used: ['já foi usado: peça os preços de novo', 'was already used: get the prices again'],
  quote_company_mismatch: ['não é a transportadora do preço', 'is not the price’s courier'],
  courier_fee_aoa_not_accepted: ['não se indica à mão', 'is not typed in'],
  payment_method_not_allowed: ['não é aceite aqui', 'is not accepted here'],
  message_not_found: ['não existe', 'does not exist'],
  delivery_pin_mismatch: ['não é o PIN desta entrega', 'is not this delivery’s PIN'],
  company_not_linked: ['não está ligada à sua conta', 'is not linked to your account'],
  remittance_amount_mismatch: ['não bate com o dinheiro cobrado', 'does not match the cash collected'],
  already_remitted: ['já está noutra remessa', 'is in another remittance already'],
  remittance_mixed_tenants: ['é de outra loja', 'belongs to another shop'],
  not_collected: ['ainda não foi cobrado', 'was not collected yet'],
  unknown_delivery: ['não é uma entrega conhecida', 'is not a known delivery'],
  duplicate: ['está repetido', 'is repeated'],
};

const index = (lang: 'pt' | 'en') => (lang === 'pt' ? 0 : 1);

/** The sentence of a problem's `error` code; null for a code this dashboard does not know. */
export const problemWords = (lang: 'pt' | 'en', code: string): string | null =>
  Object.hasOwn(ERRORS, code) ? ERRORS[code as ErrorCode][index(lang)] : null;

/** What is wrong with one field (`is required`); null for a code this dashboard does not know. */
export const fieldErrorWords = (lang: 'pt' | 'en', code: string): string | null =>
  Object.hasOwn(FIELD_ERRORS, code) ? FIELD_ERRORS[code as FieldErrorCode][index(lang)] : null;

/** Every sentence, for the test that holds both languages complete. */
export const ALL_ERROR_WORDS = { errors: ERRORS, fields: FIELD_ERRORS };
