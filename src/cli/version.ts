import { packageVersion } from '../language/package-version.js';

/** toolgen's version, from its package.json. */
export const VERSION: string = packageVersion();
