// The formats our schemas use, as one object: the Node validators register it, and the k6 build
// points ajv's standalone code at it, so both sides judge a value the same way.
// Pure module, with no imports: the k6 validators bundle runs it in every VU.

/**
 * ISO 8601 date-time as the service writes it. ajv-formats' "date-time" is RFC 3339 and rejects
 * the "+0000" offsets of the guide examples, so offsets may be Z, +hh:mm, +hhmm or +hh here (ISO
 * 8601 allows an hours-only offset), and fractions may follow a comma. A value without an offset
 * (a .NET DateTime of unspecified kind) is still ISO 8601 and passes, and so does the basic format
 * (20260101T100000Z), which ISO 8601 allows as well.
 */
export const DATE_TIME_PATTERN = '^(\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}(:\\d{2}([.,]\\d+)?)?([Zz]|[+-]\\d{2}(:?\\d{2})?)?|\\d{8}[Tt]\\d{4}(\\d{2}([.,]\\d+)?)?([Zz]|[+-]\\d{2}(\\d{2})?)?)$';

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(?:[Zz]|[+-](\d{2})(?::?(\d{2}))?)?$/;
const BASIC_DATE_TIME = /^(\d{4})(\d{2})(\d{2})[Tt](\d{2})(\d{2})(?:(\d{2})(?:[.,]\d+)?)?(?:[Zz]|[+-](\d{2})(\d{2})?)?$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

export function isDxsDateTime(value: string): boolean {
  const match = DATE_TIME.exec(value) ?? BASIC_DATE_TIME.exec(value);
  if (match === null) return false;
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((index) => Number(match[index]));
  const second = match[6] === undefined ? 0 : Number(match[6]);
  if (month < 1 || month > 12 || day < 1) return false;
  const daysInMonth = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1];
  if (day > daysInMonth || hour > 23 || minute > 59 || second > 60) return false;
  if (match[7] !== undefined && (Number(match[7]) > 23 || Number(match[8] ?? 0) > 59)) return false;
  return true;
}

const EXTENDED_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:[Zz]|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/**
 * The instant of an ISO 8601 date-time in its extended form (the spec export's SPEC_DATE_TIME_PATTERN:
 * offsets Z, +hh:mm, +hhmm, +hh or none, fractions after a dot or a comma, T or t), in milliseconds
 * since the epoch; undefined for anything else, a 30 February included. A value without an offset
 * is read as UTC: the spec names no other zone, and Date.parse would read it in the local zone of
 * whichever machine parses it. The grading sandbox and the client judge read values with this one
 * function, so that what the judge accepts the sandbox accepts.
 */
export function extendedDateTimeMs(value: string): number | undefined {
  const match = EXTENDED_DATE_TIME.exec(value);
  if (match === null || !isDxsDateTime(value)) return undefined;
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((index) => Number(match[index]));
  const second = match[6] === undefined ? 0 : Number(match[6]);
  const milliseconds = match[7] === undefined ? 0 : Math.floor(Number(`0.${match[7]}`) * 1000);
  const offsetMinutes = match[8] === undefined ? 0 : (match[8] === '-' ? -1 : 1) * (Number(match[9]) * 60 + Number(match[10] ?? 0));
  return Date.UTC(year, month - 1, day, hour, minute, second, milliseconds) - offsetMinutes * 60_000;
}

// ajv-formats' "full" email and uuid, written out: importing its format table compiled some thirty
// regular expressions (URI, IPv6, ...) in every k6 VU for these two, and each VU's heap shows in
// the k6 CPU per request of a load run. test/schemas checks that they match ajv-formats' own.
export const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;
export const UUID = /^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i;

export const DXS_FORMATS = {
  'dxs-date-time': isDxsDateTime,
  email: EMAIL,
  uuid: UUID,
};
