// A small zip writer and reader for certification packages (issue 22), on node:zlib's raw deflate
// and crc32 alone: the package needs files in, files out, and nothing more of the format (no
// zip64, no encryption, no streaming). A package is a few megabytes at most.
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  /** Forward slashes, relative to the package's root. */
  name: string;
  data: Buffer;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const DEFLATE = 8;
const STORE = 0;
/** General purpose flag bit 11: names are UTF-8. */
const UTF8_NAMES = 0x0800;

/** MS-DOS date and time of a Date (local fields, as zip tools read them), two seconds' resolution. */
function dosDateTime(date: Date): { time: number; date: number } {
  const year = Math.max(date.getFullYear(), 1980);
  return {
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | Math.floor(date.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  };
}

interface SharedFields {
  method: number;
  time: number;
  date: number;
  checksum: number;
  compressedSize: number;
  size: number;
  nameLength: number;
}

/** The fields a local header and its central directory entry share, in the same order (from "version needed" to the name's length). */
function writeSharedFields(header: Buffer, at: number, fields: SharedFields): void {
  header.writeUInt16LE(20, at);
  header.writeUInt16LE(UTF8_NAMES, at + 2);
  header.writeUInt16LE(fields.method, at + 4);
  header.writeUInt16LE(fields.time, at + 6);
  header.writeUInt16LE(fields.date, at + 8);
  header.writeUInt32LE(fields.checksum, at + 10);
  header.writeUInt32LE(fields.compressedSize, at + 14);
  header.writeUInt32LE(fields.size, at + 18);
  header.writeUInt16LE(fields.nameLength, at + 22);
}

export function writeZip(entries: readonly ZipEntry[], modified = new Date()): Buffer {
  const { time, date } = dosDateTime(modified);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const deflated = deflateRawSync(entry.data, { level: 9 });
    // Already compressed data (the PDF's streams) may not shrink: then it is stored as it is.
    const method = deflated.length < entry.data.length ? DEFLATE : STORE;
    const body = method === DEFLATE ? deflated : entry.data;
    const checksum = crc32(entry.data);
    const fields = { method, time, date, checksum, compressedSize: body.length, size: entry.data.length, nameLength: name.length };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL_HEADER, 0);
    writeSharedFields(local, 4, fields);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(CENTRAL_HEADER, 0);
    central.writeUInt16LE(0x0314, 4); // made by: Unix, spec 2.0
    writeSharedFields(central, 6, fields);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38); // external attributes: a regular file, rw-r--r--
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

export class ZipError extends Error {}

/**
 * The entries of a zip (stored or deflated), checked against their CRC-32. Throws ZipError for
 * anything else: a package is only ever what writeZip wrote, or a zip tool's copy of it.
 */
export function readZip(zip: Buffer): ZipEntry[] {
  let end = -1;
  for (let index = zip.length - 22; index >= Math.max(0, zip.length - 22 - 0xffff); index--) {
    if (zip.readUInt32LE(index) === END_OF_CENTRAL_DIRECTORY) {
      end = index;
      break;
    }
  }
  if (end < 0) throw new ZipError('not a zip file (no end of central directory)');
  const count = zip.readUInt16LE(end + 10);
  let position = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let index = 0; index < count; index++) {
    if (position + 46 > zip.length || zip.readUInt32LE(position) !== CENTRAL_HEADER) throw new ZipError('the central directory is damaged');
    const method = zip.readUInt16LE(position + 10);
    const checksum = zip.readUInt32LE(position + 16);
    const compressedSize = zip.readUInt32LE(position + 20);
    const size = zip.readUInt32LE(position + 24);
    const nameLength = zip.readUInt16LE(position + 28);
    const extraLength = zip.readUInt16LE(position + 30);
    const commentLength = zip.readUInt16LE(position + 32);
    const localOffset = zip.readUInt32LE(position + 42);
    const name = zip.subarray(position + 46, position + 46 + nameLength).toString('utf8');
    position += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/')) continue;
    if (localOffset + 30 > zip.length || zip.readUInt32LE(localOffset) !== LOCAL_HEADER) throw new ZipError(`${name}: its local header is damaged`);
    const start = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    const body = zip.subarray(start, start + compressedSize);
    let data: Buffer;
    try {
      if (method === STORE) data = Buffer.from(body);
      else if (method === DEFLATE) data = inflateRawSync(body);
      else throw new ZipError(`${name}: compression method ${method} is not supported`);
    } catch (error) {
      if (error instanceof ZipError) throw error;
      throw new ZipError(`${name}: cannot be inflated (${(error as Error).message})`);
    }
    if (data.length !== size || crc32(data) !== checksum) throw new ZipError(`${name}: its CRC-32 or size does not match its contents`);
    entries.push({ name, data });
  }
  return entries;
}
