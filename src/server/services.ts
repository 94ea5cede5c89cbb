// The services tsgit serves, by git's name. The transports (http.ts, daemon.ts) look a request's
// service up here in the server's process, and a worker (worker-main.ts) in its own: a service is
// a module, not a value passed at run time, because the worker is another process. A new service
// is one import and one entry below.
import type { Service } from './service.js';
import { receivePackService } from './receive-pack-service.js';
import { uploadPackService } from './upload-pack-service.js';

export const SERVICES: readonly Service[] = [uploadPackService, receivePackService];

const BY_NAME = new Map(SERVICES.map(s => [s.name, s]));

/** The service called `name` ('upload-pack'), or undefined. */
export function findService(name: string): Service | undefined {
  return BY_NAME.get(name);
}

/** The service a wire name ('git-upload-pack') names, or undefined. */
export function serviceFromWire(wireName: string): Service | undefined {
  return wireName.startsWith('git-') ? BY_NAME.get(wireName.slice(4)) : undefined;
}
