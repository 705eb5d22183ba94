// A document that cannot be converted (fixtures' unconvertible.xml: well-formed XML whose root is
// no document type, sent as UBL) ends in ConversionFailed and carries an ErrorInfo.
import { checks, expectCheck, observe, schema, tags } from '../support/index.ts';
import { currentStatusOf, fact, historyOf, pollStatus, sentDocument, statusPath } from '../support/outbound.ts';
import { test } from '../support/index.ts';

const { statusIs } = checks;

/** A field's value for a check's "actual": JSON.stringify gives no text for an absent one. */
const shown = (value: unknown): string => (value === undefined ? 'absent' : JSON.stringify(value));

test('a document that cannot be converted ends ConversionFailed with an ErrorInfo', { tag: tags('flows', 'FLOW-18', 'OUT-STA-08', 'OUT-STA-10', 'OUT-STA-19', 'OUT-STA-22') }, async ({ api, fixtures, target, registeredCompany }) => {
  const auth = { clientToken: registeredCompany.token };
  // Whether the API refuses it at send time is not shown; the guide's flow lets it fail in conversion.
  const sent = await sentDocument(api, fixtures, registeredCompany.token, 'PDF', { file: 'unconvertible.xml' });
  const poll = await pollStatus(api, target, registeredCompany.token, sent.documentId);
  const last = poll.last;
  const status = currentStatusOf(last.data);
  const history = historyOf(last.data);
  await observe('OUT-STA-19', `unconvertible document: CurrentStatus seen while polling: ${poll.seen.join(' -> ')}; final StatusHistory: ${history.join(' -> ')}; DocumentType ${JSON.stringify(last.data?.DocumentType)}`, last);

  await expectCheck(last, [statusIs(200), schema('outbound-document.response')], { requirement: 'OUT-STA-08' });
  // The order of StatusHistory is not shown: Pending at the first read, or anywhere in the history.
  await expectCheck(last, [fact('Pending first', poll.reads[0]?.status === 'Pending' || history.includes('Pending'), 'Pending at the first read, or among the StatusHistory entries', `first read ${poll.reads[0]?.status}; StatusHistory ${history.join(', ') || '(empty)'}`)], { requirement: 'OUT-STA-10' });

  const error = last.data?.Error;
  await expectCheck(
    last,
    [
      fact('final status', status === 'ConversionFailed', 'CurrentStatus ConversionFailed (bounded by the async timeout)', `${status}; seen ${poll.seen.join(' -> ')}`),
      fact('Error present', typeof error === 'object' && error !== null, 'an Error object', JSON.stringify(error ?? null)),
    ],
    { requirement: 'FLOW-18' },
  );

  if (typeof error === 'object' && error !== null) {
    await expectCheck(
      last,
      [
        fact('Error.Message', typeof error.Message === 'string', 'Message a string (plain text)', shown(error.Message)),
        fact('Error.MoreInfoUri', error.MoreInfoUri === undefined || error.MoreInfoUri === null || typeof error.MoreInfoUri === 'string', 'MoreInfoUri a string, null, or absent', shown(error.MoreInfoUri)),
        fact('Error.Status', typeof error.Status === 'string', 'Status a string', shown(error.Status)),
      ],
      { requirement: 'OUT-STA-08' },
    );
    await observe('OUT-STA-22', `Error.Status of a failed conversion: ${JSON.stringify(error.Status)}`, last);
    // The same Error on the invoices path.
    const invoices = await api.get(statusPath(sent.documentId, 'invoices'), { auth });
    await expectCheck(invoices, [statusIs(200), fact('same Error', JSON.stringify(invoices.data?.Error ?? null) === JSON.stringify(error), `Error ${JSON.stringify(error)}`, JSON.stringify(invoices.data?.Error ?? null))], { requirement: 'OUT-STA-08' });
  } else {
    await observe('OUT-STA-22', 'no Error.Status seen: the unconvertible document carried no Error', last);
  }
});
