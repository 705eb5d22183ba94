// Defaults shared by the CLI, the sandbox and the suites. The sandbox accepts these keys out of
// the box, so `dxs test --base-url http://127.0.0.1:4010/v1/api` works against `dxs sandbox`
// with no further flags. They are sandbox-only values, never credentials of a real service.
export const SANDBOX_API_KEY = 'sandbox-key-with-delete-role';
export const SANDBOX_API_KEY_WITHOUT_DELETE = 'sandbox-key-without-delete-role';
export const DEFAULT_SANDBOX_HOST = '127.0.0.1';
export const DEFAULT_SANDBOX_PORT = 4010;
export const API_PREFIX = '/v1/api';
/** Header names of the two auth schemes, as the spec writes them. */
export const API_KEY_HEADER = 'APIkey';
export const CLIENT_TOKEN_HEADER = 'ClientToken';
/** Field-name casing the sandbox answers in unless told otherwise (the guide examples' camelCase). */
export const DEFAULT_SANDBOX_CASING = 'camel';

/** What dxs test and dxs load exit with when a signal stopped them: the shell's 128 + the signal's number. */
export const INTERRUPTED_EXIT_CODE = 130;
export const TERMINATED_EXIT_CODE = 143;
