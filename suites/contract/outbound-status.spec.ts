// Contract of the outbound status: GET /documents/outbound/{DocumentId}, GET /invoices/outbound/{DocumentId}
// and GET /invoices/outbound/byerpid/{ErpDocumentId}, with and without IncludeFileInfo.
import { checks, expectCheck, observe, schema, tags } from '../support/index.ts';
import { isDxsDateTime } from '../../schemas/formats.ts';
import { currentStatusOf, fact, fileInfoUrls, historyOf, shapeOf, sentDocument, statusPath, UNKNOWN_DOCUMENT_ID } from '../support/outbound.ts';
import { asReadBy, crossReads, isolationSetting } from '../support/isolation.ts';
import { test } from '../support/index.ts';

const { statusIs, isRejected, fieldSatisfies, notServerError } = checks;

/** The top-level fields that carry a value: a field written as null or left out is the same absence. */
function topLevelFields(response: { data?: any }): string[] {
  return typeof response.data === 'object' && response.data !== null ? Object.keys(response.data).filter((key) => response.data[key] !== null).sort() : [];
}

/** The offset forms of ISO 8601 (Z, +hh:mm, +hhmm, +hh); the guide writes +0000. A Time without one deviates from the guide's examples. */
const OFFSET_FORMS = /(Z|[+-]\d{2}:\d{2}|[+-]\d{4}|[+-]\d{2})$/i;

/** An OutboundDocumentStatus: Status a string, Time an ISO 8601 date-time (the schema's own format). */
const isStatusEntry = (entry: any): boolean => typeof entry?.Status === 'string' && typeof entry?.Time === 'string' && isDxsDateTime(entry.Time);

test.describe('outbound status by id', () => {
  for (const path of ['documents', 'invoices'] as const) {
    const requirement = path === 'documents' ? 'OUT-STA-01' : 'OUT-STA-02';
    test(`GET /${path}/outbound/{DocumentId} answers 200 with the OutboundDocument of the sent invoice`, { tag: tags('outbound', requirement, 'OUT-STA-03', 'OUT-STA-05', 'OUT-STA-06', 'OUT-STA-07', 'OUT-STA-08', 'OUT-STA-09', 'OUT-STA-12', 'OUT-STA-24') }, async ({ api, fixtures, registeredCompany }) => {
      const sent = await sentDocument(api, fixtures, registeredCompany.token, 'PDF');
      const response = await api.get(statusPath(sent.documentId, path), { auth: { clientToken: registeredCompany.token } });
      await expectCheck(response, [statusIs(200)], { requirement });
      await expectCheck(response, [statusIs(200)], { requirement: 'OUT-STA-24' });
      // CurrentStatus and StatusHistory on their own before the schema, so each fails under its own ID.
      await expectCheck(response, [fieldSatisfies('CurrentStatus', 'holds a Status and a Time that is an ISO 8601 date-time', isStatusEntry)], { requirement: 'OUT-STA-05' });
      await expectCheck(response, [fieldSatisfies('StatusHistory', 'is an array of entries with a Status and an ISO 8601 Time', (value) => Array.isArray(value) && value.every(isStatusEntry))], { requirement: 'OUT-STA-06' });
      await expectCheck(response, [schema('outbound-document.response')], { requirement });
      await expectCheck(response, [fieldSatisfies('Id', `equals the DocumentId of the Location, ${sent.documentId}`, (value) => typeof value === 'string' && value.toLowerCase() === sent.documentId.toLowerCase())], { requirement: 'OUT-STA-03' });
      // The schema holds CurrentStatus, StatusHistory, the closed DocumentStatus enum and ErrorInfo; each ID is judged on it.
      for (const id of ['OUT-STA-05', 'OUT-STA-06', 'OUT-STA-08', 'OUT-STA-09']) await expectCheck(response, [schema('outbound-document.response')], { requirement: id });
      await expectCheck(response, [fieldSatisfies('ErpDocumentId', `equals the id sent, ${sent.erpDocumentId}`, (value) => value === sent.erpDocumentId)], { requirement: 'OUT-STA-07' });
      const times = [response.data?.CurrentStatus, ...(response.data?.StatusHistory ?? [])].map((entry: any) => String(entry?.Time));
      await observe('OUT-STA-12', `Time values written ${times.join(', ')}`, response);
      await expectCheck(response, [fact('Time offsets', times.every((time) => OFFSET_FORMS.test(time)), 'every Time with an offset (Z, +hh:mm, +hh, or +0000 as the guide writes it): the guide examples show one', times.join(', '))], { requirement: 'OUT-STA-12' });
    });
  }

  test('a newly sent document is reported as Pending', { tag: tags('outbound', 'OUT-STA-10', 'OUT-STA-04', 'OUT-STA-19') }, async ({ api, fixtures, registeredCompany }) => {
    const sent = await sentDocument(api, fixtures, registeredCompany.token, 'PDF');
    const response = await api.get(statusPath(sent.documentId), { auth: { clientToken: registeredCompany.token } });
    // A fast target may already be past Pending: then Pending is in StatusHistory (whose order is not shown).
    const status = currentStatusOf(response.data);
    const history = historyOf(response.data);
    await expectCheck(response, [statusIs(200), fact('Pending first', status === 'Pending' || history.includes('Pending'), 'CurrentStatus Pending, or Pending among the StatusHistory entries', `CurrentStatus ${status}; StatusHistory ${history.join(', ')}`)], { requirement: 'OUT-STA-10' });
    // Whether the API's checks pass at send or later is not observable: DocumentType is Document or
    // already the actual type; which one, at this status, is recorded.
    const documentType = response.data?.DocumentType;
    await expectCheck(response, [fieldSatisfies('DocumentType', 'is a non-empty string (Document, or the actual type)', (value) => typeof value === 'string' && value !== '')], { requirement: 'OUT-STA-04' });
    await observe('OUT-STA-19', `right after send: CurrentStatus ${status}, DocumentType ${JSON.stringify(documentType)}`, response);
  });

  test('IncludeFileInfo=true adds file information with URLs, and the default equals false', { tag: tags('outbound', 'OUT-STA-13', 'OUT-STA-14', 'OUT-STA-25') }, async ({ api, fixtures, registeredCompany }) => {
    const auth = { clientToken: registeredCompany.token };
    const sent = await sentDocument(api, fixtures, registeredCompany.token, 'PDF');
    // "GET /invoices/outbound/{DocumentId} and GET /documents/outbound/{DocumentId}": the query holds on both.
    for (const route of ['documents', 'invoices'] as const) {
      const plain = await api.get(statusPath(sent.documentId, route), { auth });
      const explicitFalse = await api.get(statusPath(sent.documentId, route), { auth, query: { IncludeFileInfo: false } });
      const withInfo = await api.get(statusPath(sent.documentId, route), { auth, query: { IncludeFileInfo: true } });
      const plainFields = topLevelFields(plain);
      await expectCheck(explicitFalse, [statusIs(200), fact('same fields', JSON.stringify(topLevelFields(explicitFalse)) === JSON.stringify(plainFields), `the fields of the answer without the query: ${plainFields.join(', ')}`, topLevelFields(explicitFalse).join(', '))], { requirement: 'OUT-STA-25' });
      const added = Object.fromEntries(Object.entries(withInfo.data ?? {}).filter(([key]) => !plainFields.includes(key)));
      const urls = fileInfoUrls(plain, withInfo);
      await expectCheck(withInfo, [statusIs(200), schema('outbound-document.response'), fact('file information', urls.length > 0, 'at least one URL that the answer without IncludeFileInfo does not carry', `URLs only with IncludeFileInfo: ${urls.map(([where]) => where).join(', ') || 'none'}`)], { requirement: 'OUT-STA-13' });
      await observe('OUT-STA-14', `GET /${route}/outbound/{DocumentId}: IncludeFileInfo=true added ${JSON.stringify(shapeOf(added))}`, withInfo);
    }
  });

  test('the pattern GET /{documentType}/outbound/{id} for an order is recorded', { tag: tags('outbound', 'OUT-STA-23') }, async ({ api, fixtures, registeredCompany }) => {
    const sent = await sentDocument(api, fixtures, registeredCompany.token, 'PDF', { file: 'order.xml' });
    // The shown route first, so the record says what the pattern adds to it.
    const shown = await api.get(statusPath(sent.documentId), { auth: { clientToken: registeredCompany.token } });
    const response = await api.get(`/orders/outbound/${sent.documentId}`, { auth: { clientToken: registeredCompany.token } });
    await observe('OUT-STA-23', `GET /orders/outbound/{id} of a sent order answered ${response.status}${response.data?.DocumentType ? ` with DocumentType ${response.data.DocumentType}` : ''} (GET /documents/outbound/{DocumentId} answered ${shown.status})`, response);
  });
});

test.describe('outbound status by ErpDocumentId', () => {
  test('GET /invoices/outbound/byerpid/{ErpDocumentId} answers 200 with the same document', { tag: tags('outbound', 'OUT-STA-15') }, async ({ api, fixtures, registeredCompany }) => {
    const sent = await sentDocument(api, fixtures, registeredCompany.token, 'PDF');
    const response = await api.get(`/invoices/outbound/byerpid/${encodeURIComponent(sent.erpDocumentId ?? '')}`, { auth: { clientToken: registeredCompany.token } });
    await expectCheck(
      response,
      [statusIs(200), schema('outbound-document.response'), fieldSatisfies('Id', `equals ${sent.documentId}`, (value) => typeof value === 'string' && value.toLowerCase() === sent.documentId.toLowerCase())],
      { requirement: 'OUT-STA-15' },
    );
  });

  test('an ErpDocumentId that was never supplied is rejected', { tag: tags('outbound', 'OUT-STA-16') }, async ({ api, registeredCompany, target }) => {
    const response = await api.get(`/invoices/outbound/byerpid/${target.runPrefix}-never-sent`, { auth: { clientToken: registeredCompany.token } });
    await expectCheck(response, [isRejected], { requirement: 'OUT-STA-16' });
  });
});

test.describe('outbound status refusals', () => {
  for (const path of ['documents', 'invoices'] as const) {
    test(`GET /${path}/outbound/{DocumentId} rejects an id that is not a uuid, and an unknown uuid`, { tag: tags('outbound', 'OUT-STA-17', 'OUT-STA-18', 'OUT-STA-26') }, async ({ api, registeredCompany }) => {
      const auth = { clientToken: registeredCompany.token };
      const notUuid = await api.get(`/${path}/outbound/not-a-uuid`, { auth });
      await expectCheck(notUuid, [isRejected], { requirement: 'OUT-STA-17' });
      // The spec gives no status for an unknown id: no 5xx is the invariant, and a 4xx signals the error ("Errors are signalled by the HTTP status.").
      const unknown = await api.get(statusPath(UNKNOWN_DOCUMENT_ID, path), { auth });
      await expectCheck(unknown, [notServerError], { requirement: 'OUT-STA-18' });
      await expectCheck(unknown, [isRejected], { requirement: 'OUT-STA-26' });
    });
  }

  test("one company's token does not read another company's outbound status: both ways, and a third company's", { tag: tags('outbound', 'OUT-STA-20') }, async ({ api, target, fixtures, registeredCompany, otherCompany }) => {
    const setting = await isolationSetting(api, target, fixtures, [registeredCompany, otherCompany]);
    for (const { holder, reader } of crossReads(setting)) {
      const { sent } = holder;
      for (const path of [statusPath(sent.documentId), statusPath(sent.documentId, 'invoices'), `/invoices/outbound/byerpid/${encodeURIComponent(sent.erpDocumentId ?? '')}`]) {
        const response = await api.get(path, { auth: { clientToken: reader.company.token } });
        await expectCheck(response, [asReadBy(isRejected, reader)], { requirement: 'OUT-STA-20' });
      }
    }
  });

  test('outbound status without credentials is rejected', { tag: tags('outbound', 'OUT-STA-21') }, async ({ api, fixtures, registeredCompany }) => {
    const sent = await sentDocument(api, fixtures, registeredCompany.token, 'PDF');
    for (const path of [statusPath(sent.documentId), statusPath(sent.documentId, 'invoices'), `/invoices/outbound/byerpid/${encodeURIComponent(sent.erpDocumentId ?? '')}`]) {
      const response = await api.get(path, { auth: 'none' });
      await expectCheck(response, [isRejected], { requirement: 'OUT-STA-21' });
    }
  });
});
