// Contract of the outbound download: GET /documents/outbound/download/{DocumentId}, and the
// download URLs of the file information (IncludeFileInfo=true).
import { checks, expectCheck, notReached, observe, tags } from '../support/index.ts';
import { followGivenUrl } from '../support/target-urls.ts';
import { downloadOutbound, fact, fileInfoUrls, isBinaryDocument, sentDocument, statusPath, UNKNOWN_DOCUMENT_ID } from '../support/outbound.ts';
import { asReadBy, crossReads, isolationSetting } from '../support/isolation.ts';
import { test } from '../support/index.ts';

const { statusIs, isRejected, notServerError } = checks;

function downloadPath(documentId: string): string {
  return `/documents/outbound/download/${encodeURIComponent(documentId)}`;
}

test.describe('outbound download', () => {
  test('a sent document downloads with 200 and its binary content', { tag: tags('outbound', 'OUT-DL-01', 'OUT-DL-07') }, async ({ api, fixtures, registeredCompany }) => {
    const sent = await sentDocument(api, fixtures, registeredCompany.token, 'PDF');
    const response = await downloadOutbound(api, registeredCompany.token, downloadPath(sent.documentId));
    await expectCheck(response, [statusIs(200), isBinaryDocument(response)], { requirement: 'OUT-DL-01' });
    await observe('OUT-DL-07', `Content-Type ${response.headers['content-type'] ?? '(none)'}; Content-Disposition ${response.headers['content-disposition'] ?? '(none)'}`, response);
  });

  test('the download URLs of the file information lead to the document', { tag: tags('outbound', 'OUT-DL-06', 'OUT-DL-10') }, async ({ api, fixtures, registeredCompany, target }) => {
    const auth = { clientToken: registeredCompany.token };
    const sent = await sentDocument(api, fixtures, registeredCompany.token, 'PDF');
    const plain = await api.get(statusPath(sent.documentId), { auth });
    const withInfo = await api.get(statusPath(sent.documentId), { auth, query: { IncludeFileInfo: true } });
    const urls = fileInfoUrls(plain, withInfo);
    await expectCheck(withInfo, [statusIs(200), fact('download URL', urls.length > 0, 'a URL in the file information', `${urls.length} URL(s)`)], { requirement: 'OUT-DL-06' });
    // A URL not under the base URL is a warning of its own (OUT-DL-10); OUT-DL-06 is not reached
    // when no URL of the file information could be followed.
    const followed: string[] = [];
    for (const [where, url] of urls) {
      const path = await followGivenUrl(withInfo, { where, url }, target.baseUrl, 'OUT-DL-10', []);
      if (path !== undefined) followed.push(path);
    }
    if (urls.length > 0 && followed.length === 0) notReached('OUT-DL-06', `no URL of the file information is under the base URL ${target.baseUrl} (OUT-DL-10 names each), so dxs followed none`);
    for (const path of followed) {
      const response = await downloadOutbound(api, registeredCompany.token, path);
      await expectCheck(response, [statusIs(200), isBinaryDocument(response)], { requirement: 'OUT-DL-06' });
    }
  });

  test('which credential the download takes is recorded', { tag: tags('outbound', 'OUT-DL-03', 'OUT-DL-01') }, async ({ api, fixtures, registeredCompany }) => {
    const sent = await sentDocument(api, fixtures, registeredCompany.token, 'PDF');
    const withToken = await api.get(downloadPath(sent.documentId), { auth: { clientToken: registeredCompany.token } });
    await observe('OUT-DL-03', `download with only the ClientToken header answered ${withToken.status}`, withToken);
    const withApiKey = await api.get(downloadPath(sent.documentId), { auth: 'apiKey' });
    await observe('OUT-DL-03', `download with only the APIkey header answered ${withApiKey.status}`, withApiKey);
    // The guide downloads with the company's token (authentication rule 4 names outbound status); one of the two must work.
    await expectCheck(withToken.status === 200 ? withToken : withApiKey, [statusIs(200)], { requirement: 'OUT-DL-01' });
  });
});

test.describe('outbound download refusals', () => {
  test('a DocumentId that is not a uuid, and an unknown uuid, are rejected', { tag: tags('outbound', 'OUT-DL-02', 'OUT-DL-08', 'OUT-DL-09') }, async ({ api, registeredCompany }) => {
    const notUuid = await downloadOutbound(api, registeredCompany.token, '/documents/outbound/download/not-a-uuid');
    await expectCheck(notUuid, [isRejected], { requirement: 'OUT-DL-02' });
    // The spec gives no status for an unknown id: no 5xx is the invariant, and a 4xx signals the error ("Errors are signalled by the HTTP status.").
    const unknown = await downloadOutbound(api, registeredCompany.token, downloadPath(UNKNOWN_DOCUMENT_ID));
    await expectCheck(unknown, [notServerError], { requirement: 'OUT-DL-08' });
    await expectCheck(unknown, [isRejected], { requirement: 'OUT-DL-09' });
  });

  test("one company's token does not download another company's outbound document: both ways, and a third company's", { tag: tags('outbound', 'OUT-DL-04') }, async ({ api, target, fixtures, registeredCompany, otherCompany }) => {
    const setting = await isolationSetting(api, target, fixtures, [registeredCompany, otherCompany]);
    for (const { holder, reader } of crossReads(setting)) {
      const response = await api.get(downloadPath(holder.sent.documentId), { auth: { clientToken: reader.company.token } });
      await expectCheck(response, [asReadBy(isRejected, reader)], { requirement: 'OUT-DL-04' });
    }
  });

  test('outbound download without credentials is rejected', { tag: tags('outbound', 'OUT-DL-05') }, async ({ api, fixtures, registeredCompany }) => {
    const sent = await sentDocument(api, fixtures, registeredCompany.token, 'PDF');
    const response = await api.get(downloadPath(sent.documentId), { auth: 'none' });
    await expectCheck(response, [isRejected], { requirement: 'OUT-DL-05' });
  });
});
