// The record of a graded client's traffic: every request it made and the answer it got, kept
// whole in memory (credentials included, since the judges follow tokens from answer to use).
// Nothing here is written out as it is: the report redacts every key and token first.

export interface RecordedPart {
  name: string;
  filename?: string;
  contentType?: string;
  size: number;
}

export interface RecordedAnswer {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, the text of a small text answer, or undefined (no body, or binary). */
  body?: unknown;
  size: number;
}

export interface RecordedCall {
  /** 1, 2, 3 ... in the order requests arrived. */
  seq: number;
  method: string;
  /** Path and query as sent. */
  url: string;
  /** Path without the query. */
  path: string;
  query: Record<string, string>;
  /** Header names in lower case, values as sent. */
  headers: Record<string, string>;
  contentType?: string;
  /** The JSON body, parsed; undefined when there was none or it did not parse. */
  body?: unknown;
  /** A body that is not JSON, as text (bounded). */
  bodyText?: string;
  /** Why a body sent as JSON did not parse. */
  bodyError?: string;
  /** The parts of a multipart body. */
  parts?: RecordedPart[];
  bodySize: number;
  /** Milliseconds since the epoch. */
  startedAt: number;
  finishedAt: number;
  answer?: RecordedAnswer;
  /** Why there was no answer (the client went away, the sandbox failed). */
  error?: string;
  /** The provocation that answered this call in the sandbox's place, if one did. */
  provocation?: string;
}

export interface Provoked {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
}
