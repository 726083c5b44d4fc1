import type { ServiceDeps } from '../db/service-deps.ts';

/** What the content services (menus, pages, regions) need; app.ts builds it. */
export type ContentDeps = ServiceDeps;
