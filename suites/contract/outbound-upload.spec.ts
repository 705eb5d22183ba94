// Contract of the upload: POST /documents (multipart/form-data, part File).
import { fixtureFile } from '../../fixtures/index.ts';
import { checks, expectCheck, observe, tags } from '../support/index.ts';
import { fact, isUuid, lastSegment, uploadFile } from '../support/outbound.ts';
import { test } from '../support/index.ts';

const { statusIs, bodyIsEmpty, isRejected, locationEndsWithUuid, hasHeader, notServerError } = checks;
const UPLOAD_SIZE_PROBE_BYTES = 20 * 1024 * 1024;

test.describe('upload', () => {
  test('upload answers 202 with no body and a Location URN that ends in a uuid', { tag: tags('outbound', 'OUT-UPL-01', 'OUT-UPL-02', 'OUT-UPL-03', 'OUT-UPL-04', 'OUT-UPL-06') }, async ({ api, registeredCompany }) => {
    const { response } = await uploadFile(api, registeredCompany.token, 'invoice.xml');
    await expectCheck(response, [statusIs(202)], { requirement: 'OUT-UPL-01' });
    await expectCheck(response, [statusIs(202)], { requirement: 'OUT-UPL-06' });
    await expectCheck(response, [bodyIsEmpty], { requirement: 'OUT-UPL-02' });
    await expectCheck(response, [locationEndsWithUuid], { requirement: 'OUT-UPL-03' });
    await expectCheck(response, [hasHeader('Location', /^urn:/i)], { requirement: 'OUT-UPL-04' });
  });

  test('each upload gets its own reference', { tag: tags('outbound', 'OUT-UPL-05') }, async ({ api, registeredCompany }) => {
    const main = await uploadFile(api, registeredCompany.token, 'invoice.xml');
    const attachment = await uploadFile(api, registeredCompany.token, 'small.pdf');
    await expectCheck(main.response, [statusIs(202), locationEndsWithUuid], { requirement: 'OUT-UPL-05' });
    const first = lastSegment(main.reference);
    const second = lastSegment(attachment.reference);
    await expectCheck(
      attachment.response,
      [
        statusIs(202),
        locationEndsWithUuid,
        fact('distinct references', isUuid(second) && second !== first, `a uuid other than the first upload's ${first}`, String(second)),
      ],
      { requirement: 'OUT-UPL-05' },
    );
  });

  test('upload without credentials is rejected', { tag: tags('outbound', 'OUT-UPL-07') }, async ({ api }) => {
    const file = fixtureFile('invoice.xml');
    const response = await api.post('/documents', { auth: 'none', multipart: { File: { name: file.name, mimeType: file.contentType, buffer: file.bytes } } });
    await expectCheck(response, [isRejected], { requirement: 'OUT-UPL-07' });
  });

  // The spec describes the request (multipart, part File) but not the answer to another one: no 5xx
  // is the invariant, a refusal good practice (a lenient target may take the file of another part).
  test('a multipart body without the part File gives no server error, and is rejected', { tag: tags('outbound', 'OUT-UPL-08', 'OUT-UPL-12') }, async ({ api, registeredCompany }) => {
    const file = fixtureFile('invoice.xml');
    const response = await api.post('/documents', { auth: { clientToken: registeredCompany.token }, multipart: { Attachment: { name: file.name, mimeType: file.contentType, buffer: file.bytes } } });
    await expectCheck(response, [notServerError], { requirement: 'OUT-UPL-08' });
    await expectCheck(response, [isRejected], { requirement: 'OUT-UPL-12' });
  });

  test('a JSON body instead of multipart gives no server error, and is rejected', { tag: tags('outbound', 'OUT-UPL-09', 'OUT-UPL-12') }, async ({ api, registeredCompany }) => {
    const response = await api.post('/documents', { auth: { clientToken: registeredCompany.token }, json: {} });
    await expectCheck(response, [notServerError], { requirement: 'OUT-UPL-09' });
    await expectCheck(response, [isRejected], { requirement: 'OUT-UPL-12' });
  });

  test('the answer to a 20 MB upload is recorded', { tag: tags('outbound', 'OUT-UPL-10', 'OUT-UPL-13') }, async ({ api, registeredCompany }) => {
    // Upload size limits are not shown: record what the target does with a large file.
    const buffer = Buffer.alloc(UPLOAD_SIZE_PROBE_BYTES, 0x20);
    buffer.write('<?xml version="1.0" encoding="UTF-8"?><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><!--');
    buffer.write('--></Invoice>', buffer.length - 13);
    const { response } = await uploadFile(api, registeredCompany.token, { name: 'large.xml', mimeType: 'application/xml', buffer });
    await expectCheck(response, [checks.notServerError], { requirement: 'OUT-UPL-13' });
    await observe('OUT-UPL-10', `an upload of ${UPLOAD_SIZE_PROBE_BYTES} bytes answered ${response.status}`, response);
  });

  test('the answers to a PNG upload and an empty file upload are recorded', { tag: tags('outbound', 'OUT-UPL-11', 'OUT-UPL-13') }, async ({ api, registeredCompany }) => {
    const png = await uploadFile(api, registeredCompany.token, 'icon-256.png');
    await observe('OUT-UPL-11', `a PNG upload answered ${png.response.status}`, png.response);
    await expectCheck(png.response, [checks.notServerError], { requirement: 'OUT-UPL-13' });
    const empty = await uploadFile(api, registeredCompany.token, { name: 'empty.xml', mimeType: 'application/xml', buffer: Buffer.alloc(0) });
    await observe('OUT-UPL-11', `an empty file upload answered ${empty.response.status}`, empty.response);
    // Whatever the target accepts, a file it does not like is a client matter.
    await expectCheck(empty.response, [checks.notServerError], { requirement: 'OUT-UPL-13' });
  });
});
