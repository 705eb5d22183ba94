// All sandbox state, in memory. Every collection is bounded (config caps), so a long load run
// cannot grow the process without limit: tokens and document records are forgotten oldest first,
// and stored document bytes are evicted oldest first once their total passes the storage cap.
import { randomUUID } from 'node:crypto';
import type { SandboxConfig } from './config.ts';
import type { MessageKey, MessageParams } from './messages.ts';
import { seedDirectory, type DirectoryParty } from './directory.ts';
import { TokenTable } from './token-table.ts';

export type { TokenRecord } from './token-table.ts';

export const PROCESSES = ['SendInvoices', 'ReceiveInvoices', 'SendOrders', 'ReceiveOrders'] as const;

/** The company input fields that the sandbox keeps, in the spec's spelling. */
export interface CompanyFields {
  ErpProduct?: string;
  Name?: string;
  Email?: string;
  CountryCode?: string;
  OrgNo?: string;
  AltName?: string;
  StreetName?: string;
  Department?: string;
  PostBox?: string;
  City?: string;
  PostalZone?: string;
  PostalCode?: string;
  LanguageCode?: string;
  PhoneNo?: string;
  FaxNo?: string;
  VatNo?: string;
  GLN?: string;
  IsVatRegistered?: boolean;
  Processes?: string[];
}

export interface Identifier {
  Type: string;
  Value: string;
}

export interface ProviderARecord {
  Status: 'Completed' | 'CompleteConflict' | 'Unknown';
  AgreementStatus: 'Signed' | 'Expired' | 'Failed';
  AgreementStart: Date;
  LegalName: string;
  DisplayName: string;
  OrgNo: string;
  OrgVatNo?: string;
  ContactFirstName: string;
  ContactLastName: string;
  ContactPersonEmail: string;
  GeneralEmail: string;
  ContactPhone: string;
}

export interface Company {
  CompanyId: string;
  /** Accepted by POST /companies/details and /companies/services before activation (sandbox choice: equals CompanyId). */
  RegistrationId: string;
  ApiKey: string;
  ErpId: string;
  /** Registration status: Pending until the background step, then Registered; Deleted after a delete request ran. */
  /** Processing and an at-once Registered come from variants (registration-processing, registered-at-once). */
  Status: 'Pending' | 'Processing' | 'Registered' | 'Deleted';
  Activated: boolean;
  SearchId?: string;
  Fields: CompanyFields;
  Identifiers: Identifier[];
  ProviderA?: ProviderARecord;
  Icons: Map<string, Buffer>;
  NextSequenceNo: number;
  /** Inbound document ids in SequenceNo order. */
  Inbox: string[];
  CreatedAt: number;
}

export interface Upload {
  Id: string;
  CompanyId: string;
  Filename: string;
  ContentType: string;
  Size: number;
  /** Undefined once evicted by the storage cap. */
  Bytes?: Buffer;
  CreatedAt: number;
}

export interface StatusEntry {
  Status: string;
  Time: number;
}

export interface StoredError {
  Key: MessageKey;
  Params: MessageParams;
  Status: string;
  MoreInfoUri: string | null;
}

export interface OutboundDocument {
  Id: string;
  CompanyId: string;
  ErpDocumentId?: string;
  DocumentType: string;
  StatusHistory: StatusEntry[];
  Error?: StoredError;
  SendType: string;
  /** 'ProviderA' or 'ProviderB' for business-to-consumer sends. */
  Provider?: string;
  /** Values that route an Electronic send (RecipientId, RecipientInformation GLN/OrgNo/VatNo). */
  RecipientKeys: string[];
  DocumentFormat: string;
  UploadId: string;
  RenderedDocumentFormat?: string;
  RenderedUploadId?: string;
  AttachmentUploadIds: string[];
  CreatedAt: number;
  UpdatedAt: number;
}

export interface InboundDocument {
  Id: string;
  CompanyId: string;
  SequenceNo: number;
  DocumentType: string;
  DocumentFormat: string;
  UploadId: string;
  RenderedDocumentFormat?: string;
  RenderedUploadId?: string;
  AttachmentUploadIds: string[];
  Handled: boolean;
  SourceDocumentId: string;
  ReceivedAt: number;
  /** inbound-list-lossy: delivered, yet never in the incoming list; `counted` (inbound-list-lossy-total): its Total still counts it. */
  Unlisted?: boolean | 'counted';
  /** handled-comes-back: downloaded once it was marked handled (rule 3's "after a marked document is fetched"). */
  FetchedAfterHandled?: boolean;
}

export interface User {
  UserName: string;
  Email: string;
  CultureCode: string;
  CompanyId: string;
}

/** A Map that forgets its oldest entry once it holds more than `limit`. */
export class BoundedMap<K, V> extends Map<K, V> {
  private readonly limit: number;

  constructor(limit: number) {
    super();
    this.limit = limit;
  }

  override set(key: K, value: V): this {
    super.set(key, value);
    if (this.size > this.limit) this.delete(this.keys().next().value as K);
    return this;
  }
}

/** A Set that forgets its oldest entry once it holds more than `limit`. */
export class BoundedSet<T> extends Set<T> {
  private readonly limit: number;

  constructor(limit: number) {
    super();
    this.limit = limit;
  }

  override add(value: T): this {
    super.add(value);
    if (this.size > this.limit) this.delete(this.values().next().value as T);
    return this;
  }
}

/** Digits only, so "556677-8899" and "5566778899" name the same organisation. */
export function normaliseOrgNo(orgNo: string): string {
  return orgNo.replace(/[^0-9A-Za-z]/g, '').toUpperCase();
}

export class Store {
  readonly config: SandboxConfig;
  /** Configured API keys by value. Callers keep the configured string, not the request header's copy. */
  readonly apiKeys: Map<string, { Key: string; Roles: Set<string> }>;
  readonly companies = new Map<string, Company>();
  /** API key -> ErpId -> company: the ErpId is unique per integrator, and no joined key is built per call. */
  private readonly companiesByErpId = new Map<string, Map<string, Company>>();
  readonly tokens: TokenTable;
  readonly uploads = new Map<string, Upload>();
  readonly outbound = new Map<string, OutboundDocument>();
  readonly outboundByErpId = new Map<string, string>();
  readonly inbound = new Map<string, InboundDocument>();
  readonly users: BoundedMap<string, User>;
  readonly deleteRequests: BoundedSet<string>;
  readonly networkSetupRequests = new Map<string, { CompanyId: string; CreatedAt: number }>();
  /** Provider A tenants: normalised OrgNo -> CompanyId of the owner. */
  readonly providerATenants = new Map<string, string>();
  readonly directory: DirectoryParty[];
  storedBytes = 0;

  constructor(config: SandboxConfig) {
    this.config = config;
    this.apiKeys = new Map(config.apiKeys.map((apiKey) => [apiKey.key, { Key: apiKey.key, Roles: new Set(apiKey.roles) }]));
    this.tokens = new TokenTable(config.maxTokens);
    this.users = new BoundedMap(config.maxCompanies);
    this.deleteRequests = new BoundedSet(config.maxCompanies);
    this.directory = seedDirectory(config.directorySize);
    for (const name of [...config.lockedOutUserNames, ...config.notApprovedUserNames]) {
      this.users.set(name.toLowerCase(), { UserName: name, Email: `${name}@example.invalid`, CultureCode: 'en-GB', CompanyId: '' });
    }
  }

  companyByErpId(apiKey: string, erpId: string): Company | undefined {
    return this.companiesByErpId.get(apiKey)?.get(erpId);
  }

  createCompany(apiKey: string, erpId: string, fields: CompanyFields): Company {
    const id = randomUUID();
    const company: Company = {
      CompanyId: id,
      RegistrationId: id,
      ApiKey: apiKey,
      ErpId: erpId,
      Status: 'Pending',
      Activated: false,
      Fields: fields,
      Identifiers: [],
      Icons: new Map(),
      NextSequenceNo: 1,
      Inbox: [],
      CreatedAt: Date.now(),
    };
    this.companies.set(id, company);
    let ofApiKey = this.companiesByErpId.get(apiKey);
    if (ofApiKey === undefined) this.companiesByErpId.set(apiKey, (ofApiKey = new Map()));
    ofApiKey.set(erpId, company);
    if (this.companies.size > this.config.maxCompanies) this.forgetCompany(this.companies.values().next().value as Company);
    return company;
  }

  /** Drops the oldest company past the cap; its tokens then fail (their company is unknown). */
  private forgetCompany(company: Company): void {
    this.companies.delete(company.CompanyId);
    if (this.companyByErpId(company.ApiKey, company.ErpId) === company) this.companiesByErpId.get(company.ApiKey)?.delete(company.ErpId);
    if (company.ProviderA && this.providerATenants.get(normaliseOrgNo(company.ProviderA.OrgNo)) === company.CompanyId) {
      this.providerATenants.delete(normaliseOrgNo(company.ProviderA.OrgNo));
    }
  }

  deleteCompany(company: Company): void {
    company.Status = 'Deleted';
    this.companiesByErpId.get(company.ApiKey)?.delete(company.ErpId);
    this.tokens.revokeCompany(company.CompanyId);
    if (company.ProviderA && this.providerATenants.get(normaliseOrgNo(company.ProviderA.OrgNo)) === company.CompanyId) {
      this.providerATenants.delete(normaliseOrgNo(company.ProviderA.OrgNo));
    }
  }

  /** Registered companies of the whole sandbox, for lookups and electronic routing. */
  *liveCompanies(): Iterable<Company> {
    for (const company of this.companies.values()) if (company.Status !== 'Deleted') yield company;
  }

  addUpload(companyId: string, filename: string, contentType: string, bytes: Buffer): Upload {
    const upload: Upload = { Id: randomUUID(), CompanyId: companyId, Filename: filename, ContentType: contentType, Size: bytes.length, Bytes: bytes, CreatedAt: Date.now() };
    this.uploads.set(upload.Id, upload);
    this.storedBytes += bytes.length;
    this.evictBytes();
    return upload;
  }

  /** Oldest uploads lose their bytes first; the records stay so that a download can say "evicted" (410). */
  private evictBytes(): void {
    if (this.storedBytes <= this.config.storageCapBytes) return;
    for (const upload of this.uploads.values()) {
      if (this.storedBytes <= this.config.storageCapBytes) break;
      if (upload.Bytes === undefined) continue;
      this.storedBytes -= upload.Bytes.length;
      upload.Bytes = undefined;
    }
    // Evicted records are small but unbounded in count; drop the oldest beyond the document cap.
    while (this.uploads.size > this.config.maxDocuments) {
      const oldest = this.uploads.values().next().value;
      if (oldest === undefined || oldest.Bytes !== undefined) break;
      this.uploads.delete(oldest.Id);
    }
  }

  addOutbound(document: OutboundDocument): void {
    this.outbound.set(document.Id, document);
    if (document.ErpDocumentId !== undefined) this.outboundByErpId.set(`${document.CompanyId}\n${document.ErpDocumentId}`, document.Id);
    if (this.outbound.size > this.config.maxDocuments) {
      const oldest = this.outbound.values().next().value;
      if (oldest !== undefined) {
        this.outbound.delete(oldest.Id);
        const erpKey = `${oldest.CompanyId}\n${oldest.ErpDocumentId}`;
        if (this.outboundByErpId.get(erpKey) === oldest.Id) this.outboundByErpId.delete(erpKey);
      }
    }
  }

  outboundByErpDocumentId(companyId: string, erpDocumentId: string): OutboundDocument | undefined {
    const id = this.outboundByErpId.get(`${companyId}\n${erpDocumentId}`);
    return id === undefined ? undefined : this.outbound.get(id);
  }

  /** `id`: the inbound document's id, a new uuid unless given (the inbound-id-is-document-id variant). */
  addInbound(recipient: Company, document: Omit<InboundDocument, 'Id' | 'SequenceNo' | 'CompanyId' | 'Handled' | 'ReceivedAt'>, id: string = randomUUID()): InboundDocument {
    const inbound: InboundDocument = {
      ...document,
      Id: id,
      CompanyId: recipient.CompanyId,
      SequenceNo: recipient.NextSequenceNo++,
      Handled: false,
      ReceivedAt: Date.now(),
    };
    this.inbound.set(inbound.Id, inbound);
    recipient.Inbox.push(inbound.Id);
    if (this.inbound.size > this.config.maxDocuments) {
      const oldest = this.inbound.values().next().value;
      if (oldest !== undefined) {
        this.inbound.delete(oldest.Id);
        const owner = this.companies.get(oldest.CompanyId);
        if (owner) owner.Inbox.splice(owner.Inbox.indexOf(oldest.Id), 1);
      }
    }
    return inbound;
  }
}
