// Error messages in English and Swedish. The spec lets messages be localised through
// Accept-Language; the sandbox supports en (default) and sv, so clients can see that the text
// changes while the status and the body's shape do not.

export type Language = 'en' | 'sv';

const MESSAGES = {
  apiKeyMissing: { en: 'The APIkey header is missing.', sv: 'Headern APIkey saknas.' },
  apiKeyInvalid: { en: 'The API key is not valid.', sv: 'API-nyckeln är inte giltig.' },
  clientTokenMissing: { en: 'The ClientToken header is missing.', sv: 'Headern ClientToken saknas.' },
  clientTokenInvalid: { en: 'The client token is not valid.', sv: 'Klienttoken är inte giltig.' },
  clientTokenExpired: { en: 'The client token has expired.', sv: 'Klienttoken har gått ut.' },
  clientTokenRevoked: { en: 'The client token has been revoked.', sv: 'Klienttoken har återkallats.' },
  searchTokenNotAllowed: {
    en: 'A search token cannot be used for this call; use a client token of a company.',
    sv: 'En söktoken kan inte användas för det här anropet; använd ett företags klienttoken.',
  },
  credentialsMissing: { en: 'An APIkey or ClientToken header is required.', sv: 'En APIkey- eller ClientToken-header krävs.' },
  deleteRoleMissing: {
    en: 'The API key does not have the role DeleteRegistration.',
    sv: 'API-nyckeln saknar rollen DeleteRegistration.',
  },
  deletesDisabled: { en: 'All delete requests are disabled.', sv: 'Alla borttagningsbegäranden är avstängda.' },
  userPrivilegeMissing: {
    en: 'The client token lacks the privilege to add a user.',
    sv: 'Klienttoken saknar behörighet att lägga till en användare.',
  },
  bodyNotObject: { en: 'The request body must be a JSON object.', sv: 'Begärans innehåll måste vara ett JSON-objekt.' },
  bodyRequired: { en: 'The request body is required: a JSON object.', sv: 'Begärans innehåll krävs: ett JSON-objekt.' },
  bodyMalformed: { en: 'The request body is not valid JSON: {detail}', sv: 'Begärans innehåll är inte giltig JSON: {detail}' },
  bodyTooLarge: { en: 'The request body is too large.', sv: 'Begärans innehåll är för stort.' },
  fileTooLarge: { en: 'The uploaded file is too large (at most {limit} bytes).', sv: 'Den uppladdade filen är för stor (högst {limit} byte).' },
  unsupportedMediaType: { en: 'Unsupported content type: {type}.', sv: 'Innehållstypen stöds inte: {type}.' },
  fieldRequired: { en: 'The field {field} is required.', sv: 'Fältet {field} är obligatoriskt.' },
  fieldType: { en: 'The field {field} must be {type}.', sv: 'Fältet {field} måste vara {type}.' },
  fieldInvalid: { en: 'The field {field} is invalid: {detail}', sv: 'Fältet {field} är ogiltigt: {detail}' },
  fieldEnum: {
    en: 'The field {field} has the value "{value}"; allowed values: {allowed}.',
    sv: 'Fältet {field} har värdet "{value}"; tillåtna värden: {allowed}.',
  },
  emailInvalid: { en: 'The field {field} is not a valid e-mail address.', sv: 'Fältet {field} är inte en giltig e-postadress.' },
  dateTimeInvalid: { en: 'The field {field} is not a valid date-time.', sv: 'Fältet {field} är inte en giltig tidpunkt.' },
  queryInvalid: { en: 'The query parameter {field} is invalid: {detail}', sv: 'Frågeparametern {field} är ogiltig: {detail}' },
  notFound: { en: 'Not found: {what}.', sv: 'Hittades inte: {what}.' },
  routeNotFound: { en: 'No such endpoint: {method} {url}.', sv: 'Ingen sådan slutpunkt: {method} {url}.' },
  methodNotAllowed: { en: '{url} does not serve {method}; it serves {allowed}.', sv: '{url} hanterar inte {method}; den hanterar {allowed}.' },
  companyNotFoundForErpId: {
    en: 'No company with ErpId "{erpId}" is registered for this API key.',
    sv: 'Inget företag med ErpId "{erpId}" är registrerat för den här API-nyckeln.',
  },
  companyNotRegistered: {
    en: 'The company with ErpId "{erpId}" has not completed its registration yet; try again once its status is Registered.',
    sv: 'Företaget med ErpId "{erpId}" har inte slutfört sin registrering ännu; försök igen när dess status är Registered.',
  },
  foreignResource: { en: 'This {what} belongs to another company.', sv: 'Denna {what} tillhör ett annat företag.' },
  registrationIdUnknown: {
    en: 'RegistrationId "{registrationId}" does not match a company of this API key.',
    sv: 'RegistrationId "{registrationId}" matchar inget företag för den här API-nyckeln.',
  },
  companyActivated: {
    en: 'The company is activated; set its details with a client token instead of a RegistrationId.',
    sv: 'Företaget är aktiverat; ange uppgifter med en klienttoken i stället för RegistrationId.',
  },
  preregistrationMismatch: {
    en: '{field} "{value}" does not match the registration of the company.',
    sv: '{field} "{value}" stämmer inte med företagets registrering.',
  },
  userNameInvalid: {
    en: 'UserName must be at least 5 characters, letters and digits only.',
    sv: 'UserName måste vara minst 5 tecken och bestå av bokstäver och siffror.',
  },
  userNameTaken: { en: 'The user name "{userName}" is already taken.', sv: 'Användarnamnet "{userName}" är redan upptaget.' },
  userLockedOut: { en: 'The user "{userName}" exists but is locked out.', sv: 'Användaren "{userName}" finns men är utelåst.' },
  userNotApproved: { en: 'The user "{userName}" exists but is not approved.', sv: 'Användaren "{userName}" finns men är inte godkänd.' },
  identifierArgumentNull: { en: 'Argument is null: {field}.', sv: 'Argumentet är null: {field}.' },
  identifiersNotAllowed: {
    en: 'Adding an identifier is not allowed for this company.',
    sv: 'Det är inte tillåtet att lägga till en identifierare för det här företaget.',
  },
  identifierTypeUnsupported: {
    en: 'The identifier type "{value}" is not supported. Expected one of: {allowed}.',
    sv: 'Identifierartypen "{value}" stöds inte. Förväntade en av: {allowed}.',
  },
  xmlEntitiesRefused: { en: 'XML documents that declare entities are not accepted: no entity is expanded or fetched.', sv: 'XML-dokument som deklarerar entiteter tas inte emot: ingen entitet expanderas eller hämtas.' },
  uploadMissingFile: { en: 'The multipart body must hold a part named File.', sv: 'Multipart-innehållet måste ha en del som heter File.' },
  uploadNotMultipart: { en: 'The upload must be multipart/form-data.', sv: 'Uppladdningen måste vara multipart/form-data.' },
  uploadUnknown: {
    en: 'The field {field} does not reference a document uploaded by this company: {value}',
    sv: 'Fältet {field} refererar inte till ett dokument som det här företaget har laddat upp: {value}',
  },
  uploadEvicted: {
    en: 'The document content is no longer stored by the sandbox (evicted by the storage cap).',
    sv: 'Dokumentets innehåll finns inte längre i sandlådan (borttaget av lagringstaket).',
  },
  outboundMultipartUnsupported: {
    en: 'Sending documents directly as multipart is not supported by the sandbox; upload with POST /documents first.',
    sv: 'Att skicka dokument direkt som multipart stöds inte av sandlådan; ladda upp med POST /documents först.',
  },
  electronicRecipientMissing: {
    en: 'An Electronic send needs SendDocumentAs.Electronic.RecipientId or RecipientInformation with GLN, OrgNo or VatNo.',
    sv: 'En elektronisk sändning kräver SendDocumentAs.Electronic.RecipientId eller RecipientInformation med GLN, OrgNo eller VatNo.',
  },
  b2cNotActive: {
    en: 'No business-to-consumer delivery method is active for the company.',
    sv: 'Ingen leveransmetod till konsument är aktiv för företaget.',
  },
  b2cProviderNotActive: { en: 'The provider "{value}" is not active for the company.', sv: 'Leverantören "{value}" är inte aktiv för företaget.' },
  b2cProviderAmbiguous: {
    en: 'More than one business-to-consumer provider is active; SendDocumentAs.BusinessToConsumer.Provider is required.',
    sv: 'Mer än en leverantör till konsument är aktiv; SendDocumentAs.BusinessToConsumer.Provider krävs.',
  },
  conversionNotWellFormed: {
    en: 'The document could not be converted: it is not well-formed XML ({detail}).',
    sv: 'Dokumentet kunde inte konverteras: det är inte välformad XML ({detail}).',
  },
  conversionUnknownType: {
    en: 'The document could not be converted: the document type "{value}" is not supported.',
    sv: 'Dokumentet kunde inte konverteras: dokumenttypen "{value}" stöds inte.',
  },
  conversionUnknownFormat: {
    en: 'The document could not be converted: the content is neither XML nor PDF.',
    sv: 'Dokumentet kunde inte konverteras: innehållet är varken XML eller PDF.',
  },
  documentsEvicted: { en: 'The document is no longer stored by the sandbox.', sv: 'Dokumentet finns inte längre i sandlådan.' },
  providerANotSwedish: {
    en: 'Provider A is available only for companies registered in Sweden (CountryCode SE).',
    sv: 'Leverantör A är endast tillgänglig för företag registrerade i Sverige (CountryCode SE).',
  },
  providerAMustAccept: { en: 'The field {field} must be true.', sv: 'Fältet {field} måste vara true.' },
  providerAConflict: {
    en: 'The customer tenant (OrgNo {value}) is owned by another company. Conflicts are resolved manually at the provider.',
    sv: 'Kundens tenant (OrgNo {value}) ägs av ett annat företag. Konflikter löses manuellt hos leverantören.',
  },
  providerANotRegistered: {
    en: 'The organisation is not registered with provider A.',
    sv: 'Organisationen är inte registrerad hos leverantör A.',
  },
  providerANotComplete: {
    en: 'The registration with provider A is not complete.',
    sv: 'Registreringen hos leverantör A är inte slutförd.',
  },
  providerATooManySsns: {
    en: 'At most 500000 social security numbers may be sent; got {count}.',
    sv: 'Högst 500000 personnummer får skickas; fick {count}.',
  },
  iconInvalid: { en: 'The icon is invalid: {detail}', sv: 'Ikonen är ogiltig: {detail}' },
  internalError: { en: 'Internal error.', sv: 'Internt fel.' },
} satisfies Record<string, Record<Language, string>>;

export type MessageKey = keyof typeof MESSAGES;

/** Every message the sandbox answers with: dxs client-check names the client requirement behind each. */
export const MESSAGE_KEYS = Object.keys(MESSAGES) as MessageKey[];
export type MessageParams = Record<string, string | number>;

export function message(language: Language, key: MessageKey, params: MessageParams = {}): string {
  return MESSAGES[key][language].replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** The preferred supported language of an Accept-Language header (highest q first, en when none matches). */
export function languageOf(acceptLanguage: string | undefined): Language {
  if (!acceptLanguage) return 'en';
  let best: Language = 'en';
  let bestQuality = -1;
  for (const entry of acceptLanguage.split(',')) {
    const [tag, ...parameters] = entry.trim().split(';');
    const primary = tag.trim().toLowerCase().split('-')[0];
    if (primary !== 'en' && primary !== 'sv') continue;
    let quality = 1;
    for (const parameter of parameters) {
      const [name, value] = parameter.trim().split('=');
      if (name === 'q') quality = Number(value);
    }
    if (Number.isFinite(quality) && quality > 0 && quality > bestQuality) {
      best = primary;
      bestQuality = quality;
    }
  }
  return best;
}
