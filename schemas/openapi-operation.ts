// The shape of one operation of the OpenAPI export, in a module of its own: the assembly
// (openapi.ts) and the spec export's rules (openapi-spec.ts) both read it, so the rules need not
// import the assembly that imports them.

export type Json = Record<string, unknown>;

/** Which credentials an operation takes: the spec names a scheme, or it says which applies is not shown. */
export type Scheme = 'api-key' | 'client-token' | 'not-shown';

export interface Operation {
  method: 'get' | 'post' | 'patch';
  path: string;
  tag: string;
  operationId: string;
  summary: string;
  description?: string;
  security: Scheme;
  request?: string | 'multipart';
  parameters?: Json[];
  /** The statuses the spec lists, with `4XX` where it leaves the others open. */
  responses: Record<string, Json>;
}
