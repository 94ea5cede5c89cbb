// The ERR text git daemon (and serve's daemon.ts) sends for a repository it does not serve, which
// the upload-pack relay (serve-relay.ts) recognizes to hand the request back to its command.
export const NOT_SERVED = 'access denied or repository not exported';
